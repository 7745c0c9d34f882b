import type { ManifestIndex } from '../extension/discovery.js';
import { boundedEditDistance } from './edit-distance.js';
import { CUSTOM_KEY_PREFIX, KNOWN_PARAMETERS } from './known-parameters.js';

const CORE = '@weft/core';
/** Keys longer than this get no suggestion (a hostile key costs nothing). */
const MAX_SUGGESTED_KEY_LENGTH = 128;
/** At most this many unknown keys are described per check; the rest are counted. */
const MAX_REPORTED = 20;
/** Shown keys are cut to this length. */
const MAX_SHOWN = 80;

/** Options of {@link ParameterRegistry.fromIndex}. */
export interface ParameterRegistryOptions {
  /** The application's own keys (each also valid per method). */
  readonly declare?: readonly string[];
  /** The application's own secret keys (declared too): masked in messages and left out of registered URLs. */
  readonly secret?: readonly string[];
  /**
   * `'all'` treats every first-party package as installed (for tools that judge another process's
   * configuration, such as `weft override set`). @defaultValue `'installed'`
   */
  readonly firstParty?: 'installed' | 'all';
  /** Whether the keys of manifests' `activate.value` conditions count as read. @defaultValue true */
  readonly activationKeys?: boolean;
}

interface Known {
  /** Whether `<method>.<key>` is read too. */
  readonly method: boolean;
}

/**
 * The URL keys an application knows: read by Weft, declared by its installed extensions, or declared by the
 * application — the runtime form of `docs/reference/parameters.md`.
 *
 * @remarks
 * Built once per application from discovery's manifest index (no code is imported): `@weft/core`'s keys, every
 * manifest entry's `"keys"` (and the keys its `activate.value` conditions name), the first-party catalogue rows
 * of installed packages, and the application's `parameters.declare`. Keys starting with `x-` are the
 * application's own and never reported. {@link ParameterRegistry.check} runs at export, refer and override time,
 * never per call: a known key costs one map lookup, and only an unknown key is compared (with a bounded
 * edit distance) against the candidates to suggest the closest.
 *
 * @example
 * ```ts
 * const keys = ParameterRegistry.fromIndex(app.model.index, { declare: ['my.key'] });
 * keys.check(['tsp'], ['sayHello'], 'refer(org.acme.Greeter)');
 * // ['`tsp`: unknown parameter in refer(org.acme.Greeter); did you mean `tps`?']
 * ```
 */
export class ParameterRegistry {
  private readonly known = new Map<string, Known>();
  private readonly secrets = new Set<string>();
  private readonly installed: ReadonlySet<string>;

  private constructor(installed: ReadonlySet<string>) {
    this.installed = installed;
  }

  /** The registry of what `index` found, plus the application's own keys. */
  static fromIndex(index: ManifestIndex, options: ParameterRegistryOptions = {}): ParameterRegistry {
    const declared = options.declare ?? [];
    const installed = new Set(index.packages.map((p) => p.name));
    installed.add(CORE);
    if (options.firstParty === 'all') for (const row of KNOWN_PARAMETERS.values()) for (const p of row.packages) installed.add(p);
    const registry = new ParameterRegistry(installed);
    for (const row of KNOWN_PARAMETERS.values()) {
      if (row.packages.some((p) => installed.has(p))) registry.add(row.key, row.method);
    }
    for (const records of index.records.values()) {
      for (const record of records) {
        for (const declaredKey of record.entry.keys) {
          registry.add(declaredKey.key, declaredKey.method);
          if (declaredKey.secret) registry.secrets.add(declaredKey.key);
        }
        if (options.activationKeys === false) continue;
        for (const condition of record.entry.activate?.conditions ?? []) registry.add(condition.key, true);
      }
    }
    for (const key of declared) registry.add(key, true);
    for (const key of options.secret ?? []) {
      registry.add(key, true);
      registry.secrets.add(key);
    }
    return registry;
  }

  private add(key: string, method: boolean): void {
    const existing = this.known.get(key);
    if (existing === undefined || (method && !existing.method)) this.known.set(key, { method });
  }

  /**
   * The keys extensions (manifest `"secret": true`) and the application (`parameters.secret`) declare secret, beyond
   * the built-in names: pass them to `maskSecrets`/`maskUrlText`/`isSecretKey` for messages that show a URL.
   */
  get secretKeys(): ReadonlySet<string> {
    return this.secrets;
  }

  /** Whether `key` is known as is (not as `<method>.<key>`). */
  has(key: string): boolean {
    return this.known.has(key);
  }

  /** Whether `key` is known and may be set per method (`<method>.<key>`). */
  isMethodKey(key: string): boolean {
    return this.known.get(key)?.method === true;
  }

  /**
   * Describes every key of `keys` that nobody reads: the key, `where` it came from, and the closest known keys.
   * @param methods - the service's method names (`<method>.<key>` is known when `<key>` is a method-level key).
   * @returns one message per unknown key (at most 20, then a count); empty when all are known.
   */
  check(keys: Iterable<string>, methods: readonly string[], where: string): string[] {
    const problems: string[] = [];
    let more = 0;
    let methodSet: ReadonlySet<string> | undefined;
    for (const key of keys) {
      if (this.known.has(key) || key.startsWith(CUSTOM_KEY_PREFIX)) continue;
      methodSet ??= new Set(methods);
      const problem = this.problem(key, methodSet, methods, where);
      if (problem === undefined) continue;
      if (problems.length < MAX_REPORTED) problems.push(problem);
      else more++;
    }
    if (more > 0) problems.push(`${more} more unknown parameter${more === 1 ? '' : 's'} in ${where}`);
    return problems;
  }

  private problem(key: string, methodSet: ReadonlySet<string>, methods: readonly string[], where: string): string | undefined {
    const shown = show(key);
    const dot = key.indexOf('.');
    if (dot > 0 && methodSet.has(key.slice(0, dot))) {
      const rest = key.slice(dot + 1);
      const known = this.known.get(rest);
      if (known?.method === true || rest.startsWith(CUSTOM_KEY_PREFIX)) return undefined;
      if (known !== undefined) {
        return `${shown}: \`${rest}\` cannot be set per method, so it has no effect (in ${where}); set \`${rest}\` for the whole service`;
      }
      const missing = this.notInstalled(rest);
      if (missing !== undefined) return `${shown} in ${where}: \`${rest}\` is read by \`${missing}\`, which is not installed, so it has no effect (npm install ${missing})`;
    }
    const missing = this.notInstalled(key);
    if (missing !== undefined) return `${shown} in ${where} is read by \`${missing}\`, which is not installed, so it has no effect (npm install ${missing})`;
    const suggestions = this.suggest(key, methods);
    const hint =
      suggestions.length > 0
        ? `did you mean ${suggestions.join(' or ')}?`
        : `no known parameter is close (your own keys: prefix them with \`${CUSTOM_KEY_PREFIX}\` or declare them in parameters.declare)`;
    return `${shown}: unknown parameter in ${where}; ${hint}`;
  }

  /** The first-party package that reads `key`, when none of its readers is installed. */
  private notInstalled(key: string): string | undefined {
    const row = KNOWN_PARAMETERS.get(key);
    if (row === undefined || this.known.has(key)) return undefined;
    return row.packages.some((p) => this.installed.has(p)) ? undefined : row.packages[0];
  }

  /** The closest candidates (known keys, catalogue keys, `<method>.<key>`), formatted; at most three. */
  private suggest(key: string, methods: readonly string[]): string[] {
    return this.closest(key, methods).map((candidate) => {
      const dot = candidate.indexOf('.');
      const base = this.known.has(candidate) || dot < 0 || !methods.includes(candidate.slice(0, dot)) ? candidate : candidate.slice(dot + 1);
      const missing = this.notInstalled(base);
      return missing === undefined ? `\`${candidate}\`` : `\`${candidate}\` (read by \`${missing}\`, which is not installed)`;
    });
  }

  /**
   * The known keys closest to `key` — also first-party keys of packages not installed, and `<method>.<key>` forms
   * for `methods` — by bounded edit distance (1 for keys up to 4 characters, 2 up to 8, else 3); at most three,
   * sorted. Empty when nothing is close or `key` is longer than 128 characters.
   */
  closest(key: string, methods: readonly string[] = []): string[] {
    if (key.length > MAX_SUGGESTED_KEY_LENGTH) return [];
    const max = key.length <= 4 ? 1 : key.length <= 8 ? 2 : 3;
    let best = max + 1;
    let found: string[] = [];
    const consider = (candidate: string) => {
      const distance = boundedEditDistance(key, candidate, Math.min(max, best));
      if (distance > max || distance > best) return;
      if (distance < best) {
        best = distance;
        found = [];
      }
      if (!found.includes(candidate)) found.push(candidate);
    };
    const methodKeys: string[] = [];
    for (const [candidate, known] of this.known) {
      consider(candidate);
      if (known.method) methodKeys.push(candidate);
    }
    for (const row of KNOWN_PARAMETERS.values()) {
      if (this.known.has(row.key)) continue;
      consider(row.key);
      if (row.method) methodKeys.push(row.key);
    }
    if (key.includes('.')) {
      for (const method of methods) for (const candidate of methodKeys) consider(`${method}.${candidate}`);
    }
    return found.sort().slice(0, 3);
  }
}

/** A key as shown in a message: back-quoted, control characters escaped, cut to a readable length. */
function show(key: string): string {
  const cut = key.length > MAX_SHOWN ? `${key.slice(0, MAX_SHOWN)}…` : key;
  return `\`${cut.replace(/[\u0000-\u001f\u007f`]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\``;
}
