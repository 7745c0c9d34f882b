import { booleanField, checkFields, describe, integerField, parseRuleDocument, RuleError, type Plain } from '../rule-source.js';
import { isAddressPattern } from './address-match.js';

const TAG_RULE_FIELDS = ['configVersion', 'scope', 'key', 'force', 'runtime', 'enabled', 'priority', 'dynamic', 'valid', 'tags'];
const TAG_FIELDS = ['name', 'addresses', 'match'];
const MATCH_FIELDS = ['key', 'value'];
const STRING_MATCH_FIELDS = ['exact', 'prefix', 'regex', 'wildcard', 'empty', 'noempty'];
const MAX_REGEX = 1000;

/** A `StringMatch` (`{exact: canary}`, `{prefix: …}`, `{regex: …}`, `{wildcard: …}`, `{empty: …}`, `{noempty: …}`). */
export type StringMatcher = (value: string | undefined) => boolean;

/** One tag of a rule: its name and the providers in it (by address, or by registered parameters). */
export interface TagGroup {
  readonly name: string;
  readonly addresses: readonly string[];
  /** Parameter conditions (`match`), used when `addresses` is empty: every one must hold. */
  readonly match: readonly { readonly key: string; readonly test: StringMatcher }[];
}

/** A parsed `<application>.tag-router` rule. */
export interface TagRule {
  readonly source: string;
  readonly force: boolean;
  readonly enabled: boolean;
  readonly tags: readonly TagGroup[];
}

/**
 * Parses a dynamic tag rule (`force`, `enabled`, `tags: [{name, addresses | match}]`), as dubbo-admin writes it.
 *
 * @remarks Every tag needs a `name` and non-empty `addresses` or `match` (a tag with neither is refused, where
 * Dubbo before `configVersion: v3.0` ignores it silently); `match` works in any `configVersion`. Unknown fields
 * are refused.
 * @throws {@link RuleError} naming what is wrong.
 */
export function parseTagRule(text: string, source: string): TagRule | undefined {
  const rule = parseRuleDocument(text);
  if (rule === undefined) return undefined;
  checkFields(rule, TAG_RULE_FIELDS, 'a tag rule');
  const force = booleanField(rule, 'force', false);
  const enabled = booleanField(rule, 'enabled', true);
  booleanField(rule, 'runtime', true);
  integerField(rule, 'priority', 0);
  const tags = rule['tags'];
  if (!Array.isArray(tags) || tags.length === 0) throw new RuleError(`tags must be a non-empty list of {name, addresses} or {name, match}; got ${describe(tags)}`);
  return { source, force, enabled, tags: tags.map((t: unknown, i: number) => parseTag(t, `tags[${i}]`)) };
}

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseTag(raw: unknown, where: string): TagGroup {
  if (!isPlain(raw)) throw new RuleError(`${where} must be a map with name and addresses (or match); got ${describe(raw)}`);
  checkFields(raw, TAG_FIELDS, where);
  const name = raw['name'];
  if (typeof name !== 'string' || name.trim() === '') throw new RuleError(`${where}.name must be a non-empty string; got ${describe(name)}`);
  const addressesRaw = raw['addresses'] ?? [];
  if (!Array.isArray(addressesRaw)) throw new RuleError(`${where}.addresses must be a list of "ip[:port]", CIDR or wildcard patterns; got ${describe(addressesRaw)}`);
  const addresses = addressesRaw.map((a: unknown, j: number) => {
    const text = typeof a === 'number' ? String(a) : a;
    if (typeof text !== 'string' || !isAddressPattern(text)) throw new RuleError(`${where}.addresses[${j}] is not an address pattern (ip[:port], a.b.c.*, a.b.c.0/24): ${describe(a)}`);
    return text.trim();
  });
  const matchRaw = raw['match'] ?? [];
  if (!Array.isArray(matchRaw)) throw new RuleError(`${where}.match must be a list of {key, value: {exact|prefix|regex|wildcard|empty|noempty}}; got ${describe(matchRaw)}`);
  const match = matchRaw.map((m: unknown, j: number) => parseParamMatch(m, `${where}.match[${j}]`));
  if (addresses.length === 0 && match.length === 0) {
    throw new RuleError(`${where} (tag "${name}") has neither addresses nor match: it would select no provider`);
  }
  return { name: name.trim(), addresses, match };
}

function parseParamMatch(raw: unknown, where: string): { key: string; test: StringMatcher } {
  if (!isPlain(raw)) throw new RuleError(`${where} must be a map {key, value}; got ${describe(raw)}`);
  checkFields(raw, MATCH_FIELDS, where);
  const key = raw['key'];
  if (typeof key !== 'string' || key === '') throw new RuleError(`${where}.key must be a URL key; got ${describe(key)}`);
  const value = raw['value'];
  if (!isPlain(value)) throw new RuleError(`${where}.value must be a map such as {exact: canary}; got ${describe(value)}`);
  checkFields(value, STRING_MATCH_FIELDS, `${where}.value`);
  return { key, test: stringMatcher(value, `${where}.value`) };
}

/** Dubbo's `StringMatch`: the first field set decides. */
function stringMatcher(value: Plain, where: string): StringMatcher {
  const text = (k: string): string | undefined => {
    const v = value[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new RuleError(`${where}.${k} must be a string; got ${describe(v)}`);
    return String(v);
  };
  const exact = text('exact');
  if (exact !== undefined) return (v) => v === exact;
  const prefix = text('prefix');
  if (prefix !== undefined) return (v) => v !== undefined && v.startsWith(prefix);
  const regex = text('regex');
  if (regex !== undefined) {
    if (regex.length > MAX_REGEX) throw new RuleError(`${where}.regex is longer than ${MAX_REGEX} characters`);
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${regex})$`, 'u');
    } catch (error) {
      throw new RuleError(`${where}.regex ${JSON.stringify(regex)} is not a regular expression: ${(error as Error).message}`);
    }
    return (v) => v !== undefined && re.test(v);
  }
  const wildcard = text('wildcard');
  if (wildcard !== undefined) return (v) => v !== undefined && (wildcard === '*' || v === wildcard);
  if (value['empty'] !== undefined) return (v) => v === undefined || v === '';
  if (value['noempty'] !== undefined) return (v) => v !== undefined && v !== '';
  throw new RuleError(`${where} sets none of ${STRING_MATCH_FIELDS.join(', ')}`);
}
