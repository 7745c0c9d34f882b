import type { ConsoleContext } from '../console-context.js';
import { h, type Ids } from '../dom.js';
import type { ServiceDetails } from '../types.js';

/** What an action form of the service page needs from it. */
export interface FormHost {
  readonly context: ConsoleContext;
  readonly service: string;
  /** Reloads the service's details (after an action was applied). */
  refresh(): void;
}

/** A labelled control: `<label for>` + the control, in one `.field`. */
export function field(ids: Ids, label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = ids.id('field');
  control.id = id;
  const hintElement = hint === undefined ? null : h('span', { class: 'hint', id: `${id}-hint` }, hint);
  if (hintElement !== null) control.setAttribute('aria-describedby', [control.getAttribute('aria-describedby'), hintElement.id].filter(Boolean).join(' '));
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintElement);
}

/** The method choices of a form: every method, then each by name. */
export function methodOptions(details: ServiceDetails): { value: string; label: string }[] {
  return [{ value: '', label: 'All methods' }, ...details.methods.map((m) => ({ value: m.name, label: m.returns === null ? m.name : `${m.name}(): ${m.returns}` }))];
}

/** The address choices of a form: every provider, then each by address. */
export function addressOptions(details: ServiceDetails): { value: string; label: string }[] {
  const addresses = [...new Set(details.providers.map((p) => p.address))];
  return [{ value: '', label: 'All providers' }, ...addresses.map((a) => ({ value: a, label: a }))];
}

/** An alert paragraph for a form's refusals. */
export function errorBox(): HTMLElement {
  return h('p', { class: 'error', role: 'alert' });
}
