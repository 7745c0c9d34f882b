import type { ConsoleContext, Page } from '../console-context.js';
import { messageOf } from '../console-context.js';
import { debounce, formatNumber, h, replace } from '../dom.js';
import { healthOf } from '../health.js';
import type { ServiceSummary } from '../types.js';

/** How often the list refreshes, ms. */
const REFRESH_MS = 5000;

/** The link to a service's page. */
export function serviceHref(service: string): string {
  return `#/services/${encodeURIComponent(service)}`;
}

function row(service: ServiceSummary): HTMLTableRowElement {
  const health = healthOf(service);
  const qualifiers = [service.group !== null ? `group ${service.group}` : null, service.version !== null ? `version ${service.version}` : null].filter((q) => q !== null);
  return h(
    'tr',
    { 'data-service': service.service },
    h('th', { scope: 'row' }, h('a', { href: serviceHref(service.service) }, service.service), qualifiers.length > 0 ? h('span', { class: 'muted' }, ` ${qualifiers.join(', ')}`) : null),
    h('td', {}, h('span', { class: `badge health-${health.level}` }, health.level), health.reasons.length > 0 ? h('span', { class: 'muted reasons' }, ` ${health.reasons.join(', ')}`) : null),
    h('td', { class: 'num' }, `${service.providers.enabled}/${service.providers.total}`),
    h('td', { class: 'num' }, String(service.consumers)),
    h('td', { class: 'num' }, formatNumber(service.rps)),
    h('td', { class: 'num' }, service.errorRate === null ? '–' : `${(service.errorRate * 100).toFixed(1)} %`),
    h('td', { class: 'num' }, service.p99 === null ? '–' : `${formatNumber(service.p99)} ms`),
    h('td', {}, service.mock === null ? '' : h('code', {}, service.mock)),
    h('td', {}, service.applications.join(', ')),
  );
}

/**
 * The service list: search by name, health at a glance (providers up, error rate, p99, degraded or not),
 * refreshed every 5 s.
 *
 * @example
 * ```ts
 * show(serviceListPage(context, ''));
 * ```
 */
export function serviceListPage(context: ConsoleContext, initialQuery: string): Page {
  const searchId = context.ids.id('search');
  const search = h('input', { id: searchId, type: 'search', name: 'q', value: initialQuery, autocomplete: 'off', placeholder: 'org.acme.Greeter' });
  const body = h('tbody');
  const count = h('p', { class: 'muted', role: 'status' });
  const error = h('p', { class: 'error', role: 'alert' });
  let generation = 0;
  let stopped = false;

  const load = (): void => {
    const mine = ++generation;
    context.api
      .services(search.value.trim())
      .then((services) => {
        if (mine !== generation || stopped) return;
        error.textContent = '';
        replace(body, services.length === 0 ? h('tr', {}, h('td', { colspan: 9, class: 'empty' }, search.value.trim() === '' ? 'No service is registered.' : `No service matches "${search.value.trim()}".`)) : services.map(row));
        count.textContent = `${services.length} service${services.length === 1 ? '' : 's'}`;
      })
      .catch((failure: unknown) => {
        if (mine === generation && !stopped) error.textContent = messageOf(failure);
      });
  };
  const searchSoon = debounce(() => {
    history.replaceState(null, '', search.value.trim() === '' ? '#/' : `#/?q=${encodeURIComponent(search.value.trim())}`);
    load();
  }, 200);
  search.addEventListener('input', searchSoon);
  const timer = setInterval(load, REFRESH_MS);
  load();

  const element = h(
    'main',
    {},
    h('h1', {}, 'Services'),
    h('div', { class: 'toolbar', role: 'search' }, h('label', { for: searchId }, 'Search services'), search, count),
    error,
    h(
      'table',
      { class: 'services', 'aria-label': 'Services' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Service', 'Health', 'Providers up', 'Consumers', 'Requests/s', 'Error rate', 'p99', 'Mock', 'Applications'].map((label) => h('th', { scope: 'col' }, label)),
        ),
      ),
      body,
    ),
  );
  return {
    element,
    title: 'Services',
    dispose: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
