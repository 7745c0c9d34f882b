import type { ConsoleContext, Page } from '../console-context.js';
import { messageOf } from '../console-context.js';
import { h, replace } from '../dom.js';
import type { AuditEntry } from '../types.js';
import { serviceHref } from './service-list-page.js';

function row(entry: AuditEntry): HTMLTableRowElement {
  const zkCli = typeof entry.zkCli === 'string' ? entry.zkCli : entry.zkCli.join('\n');
  return h(
    'tr',
    {},
    h('td', {}, h('time', { datetime: entry.at }, new Date(entry.at).toLocaleString())),
    h('td', {}, entry.who),
    h('td', {}, h('code', {}, entry.action)),
    h('td', {}, h('a', { href: serviceHref(entry.service) }, entry.service)),
    h('td', {}, h('code', { class: 'url' }, entry.rule), h('details', {}, h('summary', {}, 'Commands'), h('pre', { 'aria-label': 'zkCli.sh commands' }, zkCli), h('pre', { 'aria-label': 'weft CLI command' }, entry.cli))),
  );
}

/**
 * The audit log: every change applied through the console, newest first, with the rule written and the same
 * change as `zkCli.sh` and `weft` commands.
 *
 * @example
 * ```ts
 * show(auditPage(context));
 * ```
 */
export function auditPage(context: ConsoleContext): Page {
  const body = h('tbody');
  const error = h('p', { class: 'error', role: 'alert' });
  let stopped = false;
  const load = (): void => {
    context.api
      .audit()
      .then((entries) => {
        if (stopped) return;
        replace(body, entries.length > 0 ? entries.map(row) : h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'Nothing was changed through this console yet.')));
      })
      .catch((failure: unknown) => {
        if (!stopped) error.textContent = messageOf(failure);
      });
  };
  load();
  const timer = setInterval(load, 10_000);
  const element = h(
    'main',
    {},
    h('h1', {}, 'Audit'),
    error,
    h('table', { class: 'audit', 'aria-label': 'Audit log' }, h('thead', {}, h('tr', {}, ['When', 'Who', 'Action', 'Service', 'Rule'].map((c) => h('th', { scope: 'col' }, c)))), body),
  );
  return {
    element,
    title: 'Audit',
    dispose: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
