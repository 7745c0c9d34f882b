import { messageOf } from '../console-context.js';
import { debounce, h, setOptions } from '../dom.js';
import type { ServiceDetails } from '../types.js';
import { errorBox, field, type FormHost } from './form-host.js';

const EXAMPLES: Record<string, string> = {
  condition: 'method = sayHello => host != 10.0.0.3',
  tag: 'tags:\n  - name: gray\n    addresses: ["10.0.0.3:50051"]',
};

/**
 * The routing rule editor: a condition rule or a tag rule (YAML), checked as you type by the consumers' own
 * routers on the server (a plan request, which writes nothing), added or removed with a plan.
 *
 * @example
 * ```ts
 * section.append(new RouteForm(host).element);
 * ```
 */
export class RouteForm {
  readonly element: HTMLElement;
  private readonly kind = h('select', { name: 'kind' }, h('option', { value: 'condition' }, 'condition'), h('option', { value: 'tag' }, 'tag'));
  private readonly application = h('select', { name: 'application' });
  private readonly applicationField: HTMLElement;
  private readonly text = h('textarea', { name: 'rule', rows: 4, spellcheck: 'false', placeholder: EXAMPLES['condition'] });
  private readonly verdict = h('p', { class: 'verdict', role: 'status' });
  private readonly errors = errorBox();
  private generation = 0;

  constructor(private readonly host: FormHost) {
    const ids = host.context.ids;
    const titleId = ids.id('route');
    this.errors.id = ids.id('route-error');
    this.text.setAttribute('aria-describedby', this.errors.id);
    const validateSoon = debounce(() => void this.validate(), 300);
    this.text.addEventListener('input', validateSoon);
    this.applicationField = field(ids, 'Provider application', this.application, 'a tag rule belongs to the application whose providers it tags');
    this.applicationField.hidden = true;
    this.application.addEventListener('change', validateSoon);
    this.kind.addEventListener('change', () => {
      this.text.placeholder = EXAMPLES[this.kind.value] ?? '';
      this.applicationField.hidden = this.kind.value !== 'tag';
      validateSoon();
    });
    this.element = h(
      'form',
      { class: 'action', 'aria-labelledby': titleId, onsubmit: (event) => (event.preventDefault(), void this.add()) },
      h('h3', { id: titleId }, 'Routing rule'),
      field(ids, 'Kind', this.kind, 'condition: "<when> => <then>"; tag: YAML naming tags and addresses (a config centre, ZooKeeper)'),
      this.applicationField,
      field(ids, 'Rule', this.text),
      this.verdict,
      this.errors,
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, 'Add route'), h('button', { type: 'button', onclick: () => void this.remove() }, 'Remove route')),
    );
  }

  /** Takes the applications of the service's providers (a tag rule names one). */
  update(details: ServiceDetails): void {
    const applications = [...new Set(details.providers.map((p) => p.application).filter((a): a is string => a !== null && a !== ''))].sort();
    setOptions(this.application, applications.map((a) => ({ value: a, label: a })));
  }

  private target(): Record<string, unknown> {
    return this.kind.value === 'tag' && this.application.value !== '' ? { kind: 'tag', application: this.application.value } : { kind: this.kind.value };
  }

  private body(): Record<string, unknown> {
    return { ...this.target(), text: this.text.value };
  }

  /** A plan request is the validation: a bad rule answers 400 with the router's message. */
  private async validate(): Promise<void> {
    const mine = ++this.generation;
    if (this.text.value.trim() === '') {
      this.verdict.textContent = '';
      this.errors.textContent = '';
      this.text.removeAttribute('aria-invalid');
      return;
    }
    try {
      await this.host.context.api.action(this.host.service, 'POST', 'routes', this.body());
      if (mine !== this.generation) return;
      this.text.removeAttribute('aria-invalid');
      this.errors.textContent = '';
      this.verdict.textContent = 'The rule is valid.';
    } catch (error) {
      if (mine !== this.generation) return;
      this.text.setAttribute('aria-invalid', 'true');
      this.verdict.textContent = '';
      this.errors.textContent = messageOf(error);
    }
  }

  private async add(): Promise<void> {
    ++this.generation;
    this.verdict.textContent = '';
    await this.host.context.act(this.errors, (confirm) => this.host.context.api.action(this.host.service, 'POST', 'routes', { ...this.body(), confirm }), () => this.host.refresh());
  }

  private async remove(): Promise<void> {
    ++this.generation;
    this.verdict.textContent = '';
    await this.host.context.act(this.errors, (confirm) => this.host.context.api.action(this.host.service, 'DELETE', 'routes', { ...this.target(), confirm }), () => this.host.refresh());
  }
}
