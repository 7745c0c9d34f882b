import { h, replace } from './dom.js';
import type { Plan } from './types.js';

/**
 * The confirmation dialog of every action: what would be written or deleted, the same change as `zkCli.sh` and
 * `weft` commands, and Apply / Cancel.
 *
 * @remarks One per page; `ask` resolves `true` only when the operator presses Apply. Nothing is written before.
 * @example
 * ```ts
 * if (await dialog.ask(answer.plan)) await send(true);
 * ```
 */
export class PlanDialog {
  readonly element: HTMLDialogElement;
  private readonly body: HTMLElement;
  private resolve: ((confirmed: boolean) => void) | undefined;

  constructor() {
    this.body = h('div', { class: 'plan-body' });
    const apply = h('button', { type: 'button', class: 'primary', onclick: () => this.finish(true) }, 'Apply');
    const cancel = h('button', { type: 'button', onclick: () => this.finish(false) }, 'Cancel');
    this.element = h(
      'dialog',
      { class: 'plan', 'aria-labelledby': 'plan-title', 'aria-describedby': 'plan-summary' },
      h('h2', { id: 'plan-title' }, 'Confirm change'),
      this.body,
      h('div', { class: 'buttons' }, cancel, apply),
    );
    this.element.addEventListener('cancel', (event) => {
      event.preventDefault();
      this.finish(false);
    });
  }

  /** Shows `plan`; resolves with the operator's answer. */
  ask(plan: Plan): Promise<boolean> {
    this.finish(false);
    replace(
      this.body,
      h('p', { id: 'plan-summary', class: 'summary' }, plan.summary),
      h('h3', {}, 'Registry changes'),
      h(
        'ul',
        { class: 'rules', 'aria-label': 'Registry changes' },
        plan.rules.map((rule) => h('li', {}, h('span', { class: `op op-${rule.op}` }, rule.op), ' ', h('code', {}, rule.node), h('br'), h('code', { class: 'url' }, rule.url))),
      ),
      h('h3', {}, 'The same with zkCli.sh'),
      h('pre', { 'aria-label': 'zkCli.sh commands' }, plan.zkCli.join('\n')),
      h('h3', {}, 'The same with the weft CLI'),
      h('pre', { 'aria-label': 'weft CLI command' }, plan.cli),
    );
    if (!this.element.open) this.element.showModal();
    return new Promise((resolve) => (this.resolve = resolve));
  }

  private finish(confirmed: boolean): void {
    const resolve = this.resolve;
    this.resolve = undefined;
    if (this.element.open && resolve !== undefined) this.element.close();
    resolve?.(confirmed);
  }
}
