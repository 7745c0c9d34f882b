import type { Invocation, URL } from '@weft/core';

/** Dubbo's `DOES_NOT_FOUND_VALUE`: the sample of an argument or attachment key that cannot be read. */
export const NOT_FOUND = 'dubbo_internal_not_found_argument_condition_value';

const ARGUMENTS = /^arguments\[([0-9]+)\]$/;
const ATTACHMENTS = /^attachments\[(.+)\]$/;
const INTEGER = /^\d+$/;

/** Where a clause's sample comes from. */
export type SampleKind = 'url' | 'argument' | 'attachment';

/**
 * One clause of a condition (`key = a,b & key != c`): the key, the patterns it must match and must not match.
 *
 * @remarks Dubbo's `ConditionMatcher` family: keys starting with `attachments` read an invocation attachment,
 * `arguments` an argument, anything else a URL field or parameter (`method`/`methods` in a when-part: the called
 * method). The key is cut at its first `.` before the bracket is parsed (so `attachments[dubbo.tag]` reads
 * nothing and samples {@link NOT_FOUND}), exactly as Dubbo does.
 * @example
 * ```ts
 * parseCondition('host = 10.20.* & host != 10.20.153.11').get('host')?.toString(); // 'host = 10.20.* & host != 10.20.153.11'
 * ```
 */
export class ConditionClause {
  readonly matches = new Set<string>();
  readonly mismatches = new Set<string>();
  readonly kind: SampleKind;
  private readonly index: number | undefined;
  private readonly attachment: string | undefined;

  constructor(readonly key: string) {
    const head = key.includes('.') ? key.slice(0, key.indexOf('.')) : key;
    if (key.startsWith('attachments')) {
      this.kind = 'attachment';
      this.attachment = ATTACHMENTS.exec(head)?.[1];
    } else if (key.startsWith('arguments')) {
      this.kind = 'argument';
      const m = ARGUMENTS.exec(head);
      this.index = m === null ? undefined : Number(m[1]);
    } else {
      this.kind = 'url';
    }
  }

  /** The sample value this clause compares; `undefined` when the key is absent (the clause is then false). */
  sample(url: URL, invocation: Invocation | undefined, when: boolean): string | undefined {
    if (this.kind === 'attachment') {
      if (invocation === undefined || this.attachment === undefined) return NOT_FOUND;
      const value = invocation.getAttachment(this.attachment);
      return value === undefined || value === null ? undefined : String(value);
    }
    if (this.kind === 'argument') {
      const args = invocation?.args;
      if (args === undefined || this.index === undefined || this.index >= args.length) return NOT_FOUND;
      const value = args[this.index];
      return value === null || value === undefined ? 'null' : String(value);
    }
    if (when && invocation !== undefined && (this.key === 'method' || this.key === 'methods')) return methodNameOf(invocation);
    return originalValue(url, this.key);
  }

  /** Whether the sample satisfies the clause (Dubbo's `AbstractConditionMatcher.isMatch`). */
  isMatch(url: URL, consumerUrl: URL | undefined, invocation: Invocation | undefined, when: boolean): boolean {
    const value = this.sample(url, invocation, when);
    if (value === undefined) return false;
    const param = when ? undefined : consumerUrl;
    if (this.mismatches.size === 0) {
      if (this.matches.size === 0) return false;
      for (const pattern of this.matches) if (matchPattern(pattern, value, param, when)) return true;
      return false;
    }
    for (const pattern of this.mismatches) if (matchPattern(pattern, value, param, when)) return false;
    if (this.matches.size === 0) return true;
    for (const pattern of this.matches) if (matchPattern(pattern, value, param, when)) return true;
    return false;
  }

  /** `key = a,b & key != c` as written. */
  toString(): string {
    const parts: string[] = [];
    if (this.matches.size > 0) parts.push(`${this.key} = ${[...this.matches].join(',')}`);
    if (this.mismatches.size > 0) parts.push(`${this.key} != ${[...this.mismatches].join(',')}`);
    return parts.length === 0 ? this.key : parts.join(' & ');
  }
}

/** The method name routing sees: the real method of a generic `$invoke` call. */
export function methodNameOf(invocation: Invocation): string {
  const name = invocation.methodName;
  if ((name === '$invoke' || name === '$invokeAsync') && typeof invocation.args?.[0] === 'string') return invocation.args[0];
  return name;
}

/** Dubbo's `URL.toOriginalMap()` lookup: the parameters plus protocol, username, password, host, port, path, address. */
export function originalValue(url: URL, key: string): string | undefined {
  switch (key) {
    case 'protocol':
      return url.protocol || undefined;
    case 'username':
      return url.username || undefined;
    case 'password':
      return url.password || undefined;
    case 'host':
      return url.host || undefined;
    case 'port':
      return url.port > 0 ? String(url.port) : undefined;
    case 'path':
      return url.path || undefined;
    case 'address':
      return url.getAddress() || undefined;
    default:
      return url.getParameter(key);
  }
}

/** Dubbo's `URL.getRawParameter`: a `$name` reference's value. */
function rawParameter(url: URL, key: string): string | undefined {
  return key === 'address' ? url.getParameter(key) : originalValue(url, key);
}

/** One pattern against one sample: an integer range when it contains `~`, else a glob (Dubbo's value patterns). */
export function matchPattern(pattern: string, value: string, param: URL | undefined, when: boolean): boolean {
  if (pattern.includes('~')) return matchRange(pattern, value, when);
  return matchGlob(pattern, value, param);
}

/** `A~B`, `~B`: inclusive integer range; an invalid range is false in a when-part and true in a then-part. */
function matchRange(pattern: string, value: string, when: boolean): boolean {
  const fallback = !when;
  const parts = pattern.split('~');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop(); // Java's split drops trailing empties
  if (parts.length < 2) return fallback;
  const rawStart = parts[0]!.trim();
  const rawEnd = parts[1]!.trim();
  if (rawStart === '' && rawEnd === '') return fallback;
  const start = parseInteger(rawStart);
  const end = parseInteger(rawEnd);
  const v = parseInteger(value);
  if (start === undefined || end === undefined || v === undefined) return fallback;
  if (rawStart === '') return v <= end;
  if (rawEnd === '') return v >= start;
  return v >= start && v <= end;
}

/** Dubbo's `StringUtils.parseInteger`: digits only, else 0; `undefined` past Java's int range (Dubbo throws). */
function parseInteger(text: string): number | undefined {
  if (!INTEGER.test(text)) return 0;
  const n = Number(text);
  return n > 2147483647 ? undefined : n;
}

/** Dubbo's `UrlUtils.isMatchGlobPattern`: `$name` references (then-parts), `*`, and one wildcard (the last `*`). */
export function matchGlob(pattern: string, value: string, param: URL | undefined): boolean {
  let p: string | undefined = pattern;
  if (param !== undefined && pattern.startsWith('$')) p = rawParameter(param, pattern.slice(1));
  if (p === '*') return true;
  const pEmpty = p === undefined || p === '';
  const vEmpty = value === '';
  if (pEmpty && vEmpty) return true;
  if (pEmpty || vEmpty) return false;
  const star = p!.lastIndexOf('*');
  if (star === -1) return value === p;
  if (star === p!.length - 1) return value.startsWith(p!.slice(0, -1));
  if (star === 0) return value.endsWith(p!.slice(1));
  return value.startsWith(p!.slice(0, star)) && value.endsWith(p!.slice(star + 1));
}
