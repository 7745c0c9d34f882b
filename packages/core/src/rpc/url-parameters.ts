// The parameter table behind every URL: the map plus lazily built lookup structures, shared by URLs holding the same map. @internal
import type { ParameterSource } from './url.js';
import { COMMA_SPLIT } from './url-syntax.js';

// ---------------------------------------------------------------------------------------------------------------
// Parameter table: the map plus lazily built lookup structures, shared by every URL holding the same map

/** Maps each table's `map` back to its table, so `new URL({ parameters: other.parameters })` shares it. */
/** A parameter map plus its lazily built lookup structures. */
export class ParamTable {
  readonly map: Map<string, string>;
  /** Parsed numbers, keyed by the value text (parsing depends only on it). */
  #numbers: Map<string, number> | undefined;
  /** Method parameters: key → method → value, in parameter insertion order. */
  #byKey: Map<string, Map<string, string>> | undefined;
  /** Elements of the `methods` parameter; null when it is empty (no restriction); undefined until computed. */
  #methodList: readonly string[] | null | undefined;
  #methodSet: ReadonlySet<string> | null = null;

  constructor(map: Map<string, string>) {
    this.map = map;
  }

  /** The number cache, created on first use. */
  numbers(): Map<string, number> {
    return (this.#numbers ??= new Map());
  }

  /** The method-parameter index (key → method → value), built on first use. */
  byKey(): Map<string, Map<string, string>> {
    if (this.#byKey === undefined) {
      const index = new Map<string, Map<string, string>>();
      for (const [full, value] of this.map) {
        const dot = full.indexOf('.');
        if (dot < 0) continue;
        const key = full.slice(dot + 1);
        let methods = index.get(key);
        if (methods === undefined) index.set(key, (methods = new Map()));
        methods.set(full.slice(0, dot), value);
      }
      this.#byKey = index;
    }
    return this.#byKey;
  }

  /** The elements of `methods` in order, or null when it is empty. */
  methodList(): readonly string[] | null {
    if (this.#methodList === undefined) {
      const methods = this.map.get('methods');
      if (methods) {
        const list = methods.trim().split(COMMA_SPLIT).filter((m) => m !== '');
        this.#methodList = list;
        this.#methodSet = new Set(list);
      } else {
        this.#methodList = null;
      }
    }
    return this.#methodList;
  }

  /** The `methods` restriction, or null when every method is admitted. */
  methodSet(): ReadonlySet<string> | null {
    if (this.#methodList === undefined) this.methodList();
    return this.#methodSet;
  }
}

export const EMPTY_TABLE = new ParamTable(new Map());

export function tableFor(source: ParameterSource | undefined): ParamTable {
  if (source === undefined) return EMPTY_TABLE;
  const map = new Map<string, string>();
  const entries: Iterable<readonly [string, unknown]> =
    typeof (source as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function'
      ? (source as Iterable<readonly [string, string]>)
      : Object.entries(source);
  for (const [key, value] of entries) {
    if (key === '' || value === undefined || value === null) continue;
    map.set(key, typeof value === 'string' ? value : String(value));
  }
  return map.size === 0 ? EMPTY_TABLE : new ParamTable(map);
}
