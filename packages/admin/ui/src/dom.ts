// A tiny element builder: attributes, listeners and children in one call, no templates, no innerHTML.

/** What an element may hold: nodes, text, nothing. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** Attributes (`null`/`false` leave one out, `true` sets it empty) and `on<event>` listeners. */
export type Props = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

function apply(element: Element, props: Props | undefined, children: readonly Child[]): void {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(key, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(key, String(value));
  }
  append(element, children);
}

/** Appends children (text becomes text nodes, never markup). */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child as readonly Child[]);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Creates an HTML element.
 *
 * @example
 * ```ts
 * h('button', { type: 'button', onclick: () => save() }, 'Save');
 * ```
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  apply(element, props, children);
  return element;
}

/** Creates an SVG element. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): SVGElementTagNameMap[K] {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  apply(element, props, children);
  return element;
}

/** Replaces every child of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A unique id for label/control pairs, from a per-page counter. */
export class Ids {
  private next = 0;
  /** `prefix-<n>`. */
  id(prefix: string): string {
    return `${prefix}-${++this.next}`;
  }
}

/** Replaces a select's options, keeping the chosen value when it is still offered. */
export function setOptions(select: HTMLSelectElement, options: readonly { value: string; label: string }[]): void {
  const same = select.options.length === options.length && options.every((o, i) => select.options[i]?.value === o.value && select.options[i]?.text === o.label);
  if (same) return;
  const chosen = select.value;
  select.replaceChildren(...options.map((o) => h('option', { value: o.value }, o.label)));
  if (options.some((o) => o.value === chosen)) select.value = chosen;
}

/** Calls `fn` once `ms` passed without another call. */
export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** A number for people: `12.3`, `0.05`, `1.2k`, `–` for nothing. */
export function formatNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (Math.abs(value) >= 10_000) return `${(value / 1000).toFixed(1)}k`;
  if (value !== 0 && Math.abs(value) < 0.1) return value.toFixed(2);
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}
