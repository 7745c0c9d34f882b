import { messageOf } from '../console-context.js';
import { debounce, h, replace, setOptions } from '../dom.js';
import type { MockPreview, ServiceDetails } from '../types.js';
import { errorBox, field, methodOptions, type FormHost } from './form-host.js';

/** Methods previewed at most when the mock is for every method. */
const PREVIEWED_METHODS = 6;

/** The `mock` value the form stands for: `<mode>:<expression>`, unless the expression has its own prefix. */
export function mockValue(mode: string, expression: string): string {
  const text = expression.trim();
  return /^(force|fail)/.test(text) ? text : `${mode}:${text}`;
}

function describe(preview: MockPreview): string {
  if (!preview.ok) return preview.error;
  if (preview.throws !== undefined) return `throws ${preview.throws}`;
  return preview.value === undefined ? 'nothing (void)' : JSON.stringify(preview.value);
}

/**
 * Force or fail mock for a whole service or one method: the expression is checked as you type by the server's
 * parser (`/mock/preview`), which also says what the consumer will receive; "Push mock" shows the plan.
 *
 * @example
 * ```ts
 * const form = new MockForm(host); section.append(form.element); form.update(details);
 * ```
 */
export class MockForm {
  readonly element: HTMLElement;
  private readonly method = h('select', { name: 'method' });
  private readonly expression = h('input', { name: 'mock', type: 'text', value: 'return null', autocomplete: 'off', spellcheck: 'false' });
  private readonly preview = h('output', { class: 'preview', 'aria-live': 'polite' });
  private readonly errors = errorBox();
  private methods: readonly string[] = [];
  private generation = 0;

  constructor(private readonly host: FormHost) {
    const ids = host.context.ids;
    const modeName = ids.id('mode');
    const radio = (value: string, label: string, checked: boolean): HTMLElement => {
      const id = ids.id('mode');
      return h('span', { class: 'radio' }, h('input', { type: 'radio', name: modeName, id, value, checked, onchange: () => this.checkSoon() }), h('label', { for: id }, label));
    };
    this.errors.id = ids.id('mock-error');
    this.preview.id = ids.id('mock-preview');
    this.expression.setAttribute('aria-describedby', `${this.preview.id} ${this.errors.id}`);
    this.expression.addEventListener('input', () => this.checkSoon());
    this.method.addEventListener('change', () => this.checkSoon());
    const remove = h('button', { type: 'button', onclick: () => void this.remove() }, 'Remove mock');
    this.element = h(
      'form',
      { class: 'action', 'aria-labelledby': `${this.errors.id}-title`, onsubmit: (event) => (event.preventDefault(), void this.push()) },
      h('h3', { id: `${this.errors.id}-title` }, 'Mock'),
      field(ids, 'Method', this.method),
      h('fieldset', { class: 'modes' }, h('legend', {}, 'Mode'), radio('force', 'force (no provider is called)', true), radio('fail', 'fail (only when the call fails)', false)),
      field(ids, 'Mock expression', this.expression, 'return null · return "text" · return {name: \'ann\'} · throw · throw ErrorName'),
      h('p', { class: 'preview-line' }, 'The consumer receives: ', this.preview),
      this.errors,
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, 'Push mock'), remove),
    );
    this.checkSoon = debounce(() => void this.check(), 250);
  }

  /** Takes the service's methods. */
  update(details: ServiceDetails): void {
    this.methods = details.methods.map((m) => m.name);
    const first = this.method.options.length === 0;
    setOptions(this.method, methodOptions(details));
    if (first) void this.check();
  }

  private checkSoon: () => void;

  private get mode(): string {
    return (this.element.querySelector('input[type=radio]:checked') as HTMLInputElement | null)?.value ?? 'force';
  }

  private get mock(): string {
    return mockValue(this.mode, this.expression.value);
  }

  /** Asks the parser what the consumer would receive, method by method when the mock is for all of them. */
  private async check(): Promise<void> {
    const mine = ++this.generation;
    const mock = this.mock;
    const methods = this.method.value !== '' ? [this.method.value] : this.methods.slice(0, PREVIEWED_METHODS);
    try {
      const previews = methods.length === 0 ? [[undefined, await this.host.context.api.previewMock(this.host.service, { mock })] as const] : await Promise.all(methods.map(async (method) => [method, await this.host.context.api.previewMock(this.host.service, { method, mock })] as const));
      if (mine !== this.generation) return;
      const failed = previews.find(([, preview]) => !preview.ok);
      if (failed !== undefined) {
        this.expression.setAttribute('aria-invalid', 'true');
        this.preview.textContent = 'nothing: the expression is refused';
        this.errors.textContent = describe(failed[1]);
        return;
      }
      this.expression.removeAttribute('aria-invalid');
      this.errors.textContent = '';
      if (previews.length === 1) replace(this.preview, h('code', {}, describe(previews[0]![1])));
      else replace(this.preview, previews.map(([method, preview], i) => [i > 0 ? '; ' : '', `${method}: `, h('code', {}, describe(preview))]));
    } catch (error) {
      if (mine === this.generation) this.errors.textContent = messageOf(error);
    }
  }

  private async push(): Promise<void> {
    const method = this.method.value || undefined;
    const mock = this.mock;
    await this.host.context.act(this.errors, (confirm) => this.host.context.api.action(this.host.service, 'POST', 'mock', { method, mock, confirm }), () => this.host.refresh());
  }

  private async remove(): Promise<void> {
    const method = this.method.value || undefined;
    await this.host.context.act(this.errors, (confirm) => this.host.context.api.action(this.host.service, 'DELETE', 'mock', { method, confirm }), () => this.host.refresh());
  }
}
