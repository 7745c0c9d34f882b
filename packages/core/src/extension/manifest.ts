import {
  normalizeActivate,
  normalizeWrapper,
  type ActivateMetadata,
  type WrapperMetadata,
} from './decorators.js';
import { extensionNameProblem } from './names.js';

/** What kind of class a manifest entry contributes. */
export type ManifestEntryKind = 'extension' | 'wrapper' | 'adaptive';

/**
 * One validated entry of a `META-INF/weft/<point>.json` manifest.
 *
 * @remarks Everything tools need to list and explain an extension without importing its code.
 */
export interface ManifestEntry {
  /** The extension name (for wrappers and adaptive classes, a label that is not an extension name). */
  readonly name: string;
  readonly kind: ManifestEntryKind;
  /** Module path relative to the package root, e.g. `./dist/tps-limit-filter.js`. */
  readonly module: string;
  /** Export name in that module. @defaultValue `'default'` */
  readonly exportName: string;
  readonly description: string | undefined;
  /** Activation metadata (extensions only). */
  readonly activate: ActivateMetadata | undefined;
  /** Wrapper metadata (wrappers only). */
  readonly wrapper: WrapperMetadata | undefined;
  /** The URL keys the extension reads (`"keys"`), for unknown-key warnings; empty when not declared. */
  readonly keys: readonly DeclaredKey[];
}

/**
 * A URL key an extension declares it reads, from a manifest's `"keys"` list.
 *
 * @remarks `"tps.limiter"` declares a service-level key; `{ "key": "tps", "method": true }` one that may also be
 * set per method as `<method>.tps`.
 */
export interface DeclaredKey {
  readonly key: string;
  /** Whether `<method>.<key>` is read too. */
  readonly method: boolean;
  /**
   * Whether the key's value is a secret (`{ "key": "vault.signing-key", "secret": true }`): masked as `***` in every
   * message that shows a URL, and left out of registered URLs, like the built-in secret names (`token`, `password`, …).
   */
  readonly secret: boolean;
}

/** Result of validating one manifest file: its entries, or every problem found (JSON-pointer located). */
export interface ManifestParseResult {
  readonly entries: readonly ManifestEntry[];
  readonly problems: readonly string[];
}

const ENTRY_KEYS = new Set(['module', 'export', 'description', 'activate', 'wrapper', 'adaptive', 'keys']);
const DECLARED_KEY_KEYS = new Set(['key', 'method', 'secret']);
/** A URL key: letters, digits, `_`, `-`, `.`-separated segments, at most 128 characters. */
const URL_KEY = /^(?=.{1,128}$)[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
const ACTIVATE_KEYS = new Set(['group', 'value', 'order', 'before', 'after']);
const WRAPPER_KEYS = new Set(['order', 'matches', 'mismatches']);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Parses and validates the text of a manifest against the manifest schema.
 *
 * @remarks
 * The schema is `@weft/core/manifest.schema.json`, documented in `docs/reference/manifest.md`. Parsing never
 * copies keys onto ordinary objects, so a manifest containing `__proto__` cannot pollute prototypes (and is
 * rejected: it is not a valid extension name). Every problem is reported, not just the first. A leading UTF-8
 * byte order mark is accepted.
 *
 * @example
 * ```ts
 * const { entries, problems } = parseManifest('{"tps":{"module":"./dist/tps.js","export":"TpsLimitFilter"}}');
 * ```
 */
export function parseManifest(text: string): ManifestParseResult {
  let json: unknown;
  try {
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return { entries: [], problems: [`not valid JSON (${(error as Error).message})`] };
  }
  const problems: string[] = [];
  if (!isPlainObject(json)) {
    return { entries: [], problems: ['the manifest must be a JSON object mapping extension names to entries'] };
  }
  const entries: ManifestEntry[] = [];
  let adaptiveCount = 0;
  for (const name of Object.keys(json)) {
    const value = json[name];
    if (name === '$schema') {
      if (typeof value !== 'string') problems.push('/$schema: must be a string');
      continue;
    }
    const at = `/${escapePointer(name)}`;
    const nameProblem = extensionNameProblem(name);
    if (nameProblem !== undefined) {
      problems.push(`${at}: ${nameProblem}`);
      continue;
    }
    const entry = parseEntry(name, value, at, problems);
    if (entry !== undefined) {
      if (entry.kind === 'adaptive' && ++adaptiveCount > 1) {
        problems.push(`${at}: more than one adaptive class in one manifest`);
        continue;
      }
      entries.push(entry);
    }
  }
  return { entries: problems.length === 0 ? entries : [], problems };
}

function parseEntry(name: string, value: unknown, at: string, problems: string[]): ManifestEntry | undefined {
  if (!isPlainObject(value)) {
    problems.push(`${at}: must be an object like {"module": "./dist/x.js", "export": "X"}`);
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(value)) {
    if (!ENTRY_KEYS.has(key)) problems.push(`${at}/${escapePointer(key)}: unknown property (allowed: ${[...ENTRY_KEYS].join(', ')})`);
  }
  const module = value['module'];
  if (typeof module !== 'string') {
    problems.push(`${at}/module: required, a path relative to the package such as "./dist/x.js"`);
  } else {
    const problem = modulePathProblem(module);
    if (problem !== undefined) problems.push(`${at}/module: ${problem}`);
  }
  const exportName = value['export'] === undefined ? 'default' : value['export'];
  if (typeof exportName !== 'string' || !(exportName === 'default' || IDENTIFIER.test(exportName))) {
    problems.push(`${at}/export: must be the name of an export of the module (an identifier)`);
  }
  const description = value['description'];
  if (description !== undefined && typeof description !== 'string') problems.push(`${at}/description: must be a string`);

  const isAdaptive = value['adaptive'];
  if (isAdaptive !== undefined && isAdaptive !== true) problems.push(`${at}/adaptive: only the value true is allowed`);
  const wrapperRaw = value['wrapper'];
  if (wrapperRaw !== undefined && wrapperRaw !== true && !isPlainObject(wrapperRaw)) {
    problems.push(`${at}/wrapper: must be true or an object {order, matches, mismatches}`);
  }
  const activateRaw = value['activate'];
  if (activateRaw !== undefined && !isPlainObject(activateRaw)) {
    problems.push(`${at}/activate: must be an object {group, value, order, before, after}`);
  }
  const kinds = [isAdaptive !== undefined, wrapperRaw !== undefined, activateRaw !== undefined].filter(Boolean).length;
  if (kinds > 1) problems.push(`${at}: "adaptive", "wrapper" and "activate" are mutually exclusive`);

  let activate: ActivateMetadata | undefined;
  if (isPlainObject(activateRaw)) {
    checkKeys(activateRaw, ACTIVATE_KEYS, `${at}/activate`, problems);
    checkStringOrList(activateRaw['group'], `${at}/activate/group`, problems);
    checkStringOrList(activateRaw['value'], `${at}/activate/value`, problems);
    checkNameList(activateRaw['before'], `${at}/activate/before`, problems);
    checkNameList(activateRaw['after'], `${at}/activate/after`, problems);
    checkOrder(activateRaw['order'], `${at}/activate/order`, problems);
    if (problems.length === before) activate = normalizeActivate(activateRaw as object, `${at}/activate`);
  }
  let wrapper: WrapperMetadata | undefined;
  if (wrapperRaw === true) {
    wrapper = normalizeWrapper({}, `${at}/wrapper`);
  } else if (isPlainObject(wrapperRaw)) {
    checkKeys(wrapperRaw, WRAPPER_KEYS, `${at}/wrapper`, problems);
    checkNameList(wrapperRaw['matches'], `${at}/wrapper/matches`, problems);
    checkNameList(wrapperRaw['mismatches'], `${at}/wrapper/mismatches`, problems);
    checkOrder(wrapperRaw['order'], `${at}/wrapper/order`, problems);
    if (problems.length === before) wrapper = normalizeWrapper(wrapperRaw as object, `${at}/wrapper`);
  }
  const keys = parseKeys(value['keys'], `${at}/keys`, problems);
  if (problems.length > before) return undefined;
  return Object.freeze({
    name,
    kind: isAdaptive === true ? 'adaptive' : wrapper !== undefined ? 'wrapper' : 'extension',
    module: module as string,
    exportName: exportName as string,
    description: description as string | undefined,
    activate,
    wrapper,
    keys,
  });
}

function parseKeys(value: unknown, at: string, problems: string[]): readonly DeclaredKey[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.push(`${at}: must be an array of URL keys ("tps.limiter") or {"key": "tps", "method": true, "secret": false} objects`);
    return [];
  }
  const keys: DeclaredKey[] = [];
  value.forEach((item: unknown, i) => {
    const here = `${at}/${i}`;
    let key: unknown = item;
    let method: unknown = false;
    let secret: unknown = false;
    if (isPlainObject(item)) {
      checkKeys(item, DECLARED_KEY_KEYS, here, problems);
      key = item['key'];
      method = item['method'] ?? false;
      secret = item['secret'] ?? false;
      if (typeof method !== 'boolean') problems.push(`${here}/method: must be true or false`);
      if (typeof secret !== 'boolean') problems.push(`${here}/secret: must be true or false`);
    }
    if (typeof key !== 'string' || !URL_KEY.test(key)) {
      problems.push(`${here}: ${typeof key === 'string' ? `"${key}" is not a URL key` : 'must be a URL key'} (letters, digits, "_", "-", dot-separated, up to 128 characters)`);
      return;
    }
    keys.push(Object.freeze({ key, method: method === true, secret: secret === true }));
  });
  return Object.freeze(keys);
}

/** Why a manifest module path is unsafe or malformed, or `undefined`. @internal */
export function modulePathProblem(path: string): string | undefined {
  if (!path.startsWith('./')) return `"${path}" must start with "./" (a path inside the package)`;
  if (path.includes('\\')) return `"${path}" must use forward slashes`;
  if (path.split('/').some((segment) => segment === '..')) return `"${path}" must not leave the package ("..")`;
  if (path.includes('\0') || /[?#]/.test(path)) return `"${path}" must be a plain file path`;
  if (!/\.(m?js|cjs)$/.test(path)) return `"${path}" must name a JavaScript file (.js, .mjs or .cjs)`;
  return undefined;
}

function checkKeys(obj: Record<string, unknown>, allowed: ReadonlySet<string>, at: string, problems: string[]): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) problems.push(`${at}/${escapePointer(key)}: unknown property (allowed: ${[...allowed].join(', ')})`);
  }
}

function checkStringOrList(value: unknown, at: string, problems: string[]): void {
  if (value === undefined || typeof value === 'string') return;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    problems.push(`${at}: must be a string or an array of strings`);
  }
}

function checkNameList(value: unknown, at: string, problems: string[]): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    problems.push(`${at}: must be an array of extension names`);
  }
}

function checkOrder(value: unknown, at: string, problems: string[]): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
    problems.push(`${at}: must be a number`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
