import { h, setOptions } from '../dom.js';
import type { ServiceDetails } from '../types.js';
import { errorBox, field, methodOptions, type FormHost } from './form-host.js';

/**
 * Forces the circuit breaker open or closed (`circuitbreaker.force`), or gives it back to its statistics (auto).
 *
 * @example
 * ```ts
 * const form = new BreakerForm(host); form.update(details);
 * ```
 */
export class BreakerForm {
  readonly element: HTMLElement;
  private readonly state = h(
    'select',
    { name: 'state' },
    h('option', { value: 'open' }, 'force open (refuse every call)'),
    h('option', { value: 'closed' }, 'force closed (admit every call)'),
    h('option', { value: 'auto' }, 'auto (the statistics decide)'),
  );
  private readonly method = h('select', { name: 'method' });
  private readonly errors = errorBox();

  constructor(private readonly host: FormHost) {
    const ids = host.context.ids;
    const titleId = ids.id('breaker');
    this.element = h(
      'form',
      { class: 'action', 'aria-labelledby': titleId, onsubmit: (event) => (event.preventDefault(), void this.submit()) },
      h('h3', { id: titleId }, 'Circuit breaker'),
      field(ids, 'Breaker state', this.state),
      field(ids, 'Method', this.method),
      this.errors,
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, 'Plan breaker change')),
    );
  }

  /** Takes the service's methods. */
  update(details: ServiceDetails): void {
    setOptions(this.method, methodOptions(details));
  }

  private async submit(): Promise<void> {
    const method = this.method.value || undefined;
    const state = this.state.value;
    await this.host.context.act(this.errors, (confirm) => this.host.context.api.action(this.host.service, 'POST', 'breaker', { state, method, confirm }), () => this.host.refresh());
  }
}
