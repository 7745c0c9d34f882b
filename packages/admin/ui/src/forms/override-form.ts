import { h, setOptions } from '../dom.js';
import type { ServiceDetails } from '../types.js';
import { addressOptions, errorBox, field, methodOptions, type FormHost } from './form-host.js';

/** The numeric keys the form sets. */
const KEYS = [
  { key: 'timeout', label: 'Timeout (ms)', min: 1 },
  { key: 'retries', label: 'Retries', min: 0 },
  { key: 'weight', label: 'Weight', min: 0 },
] as const;

/**
 * Timeout, retries and weight for the whole service, one provider address or one method — as an override rule.
 * Empty fields are left as they are; a weight of 0 drains a provider.
 *
 * @example
 * ```ts
 * const form = new OverrideForm(host); form.update(details);
 * ```
 */
export class OverrideForm {
  readonly element: HTMLElement;
  private readonly address = h('select', { name: 'address' });
  private readonly method = h('select', { name: 'method' });
  private readonly inputs = KEYS.map((k) => ({ ...k, input: h('input', { name: k.key, type: 'number', min: k.min, step: 1, inputmode: 'numeric' }) }));
  private readonly errors = errorBox();

  constructor(private readonly host: FormHost) {
    const ids = host.context.ids;
    const titleId = ids.id('override');
    this.element = h(
      'form',
      { class: 'action', 'aria-labelledby': titleId, onsubmit: (event) => (event.preventDefault(), void this.submit()) },
      h('h3', { id: titleId }, 'Timeout, retries, weight'),
      field(ids, 'Provider address', this.address),
      field(ids, 'Method', this.method),
      h('div', { class: 'row' }, this.inputs.map((k) => field(ids, k.label, k.input))),
      this.errors,
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, 'Plan override')),
    );
  }

  /** Takes the service's providers and methods. */
  update(details: ServiceDetails): void {
    setOptions(this.address, addressOptions(details));
    setOptions(this.method, methodOptions(details));
  }

  private async submit(): Promise<void> {
    const body: Record<string, unknown> = {};
    if (this.address.value !== '') body['address'] = this.address.value;
    if (this.method.value !== '') body['method'] = this.method.value;
    for (const { key, label, input } of this.inputs) {
      if (input.value.trim() === '') continue;
      const value = Number(input.value);
      if (!Number.isInteger(value) || value < 0) {
        this.errors.textContent = `${label}: expected a whole number, got "${input.value}".`;
        return;
      }
      body[key] = value;
    }
    if (!KEYS.some((k) => k.key in body)) {
      this.errors.textContent = 'Set a timeout, retries or a weight.';
      return;
    }
    await this.host.context.act(this.errors, (confirm) => this.host.context.api.action(this.host.service, 'POST', 'override', { ...body, confirm }), () => this.host.refresh());
  }
}
