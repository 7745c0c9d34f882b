import { parseDocument } from 'yaml';

import type { URL } from '@weft/core';
import { boundedEditDistance } from '@weft/core/spi';

/** The largest rule text taken (bytes of UTF-16 text); a larger one is refused. */
export const MAX_RULE_TEXT = 256 * 1024;

/** URL keys of a config-centre rule delivered by a registry in the `routers` category. */
export const RuleUrlKeys = {
  /** The rule document (YAML or JSON), as stored in the config centre. */
  YAML: 'rule.yaml',
  /** Where it was read (`/dubbo/config/dubbo/shop.condition-router`). */
  SOURCE: 'rule.source',
  /** `service`, `application` (the consumer's) or `provider-application`. */
  SCOPE: 'rule.scope',
  /** Which router the rule is for: `condition` or `tag`. */
  ROUTER: 'router',
} as const;

/** Which router a `routers` URL is for: `router=` wins, then the protocol (`condition://`, `tag://`). */
export function routerOf(url: URL): string {
  const named = url.getParameter(RuleUrlKeys.ROUTER);
  return named !== undefined && named !== '' ? named : url.protocol;
}

/** Where a rule URL came from, for log lines. */
export function sourceOf(url: URL): string {
  return url.getParameter(RuleUrlKeys.SOURCE) ?? `the routers category of ${url.getServiceInterface() ?? url.path} (${url.toString()})`;
}

/** A rule that cannot be used; the message says why. */
export class RuleError extends Error {
  override readonly name = 'RuleError';
}

export type Plain = Record<string, unknown>;

/** Parses a YAML (or JSON) rule document into a map, bounded; `undefined` for an empty document. */
export function parseRuleDocument(text: string): Plain | undefined {
  if (text.length > MAX_RULE_TEXT) throw new RuleError(`the rule is ${text.length} characters long; the limit is ${MAX_RULE_TEXT}`);
  if (text.trim() === '') return undefined;
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) throw new RuleError(`the text is neither valid YAML nor JSON: ${doc.errors[0]?.message ?? 'syntax error'}`);
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new RuleError(`expected a map of rule fields, got ${describe(value)}`);
  return value as Plain;
}

/** Refuses fields a rule kind does not know, naming the closest known one. */
export function checkFields(rule: Plain, known: readonly string[], where: string): void {
  for (const key of Object.keys(rule)) {
    if (known.includes(key)) continue;
    let best: string | undefined;
    let bestDistance = 3;
    for (const k of known) {
      const d = boundedEditDistance(key, k, bestDistance);
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
      }
    }
    const hint = best === undefined ? '' : ` Did you mean "${best}"?`;
    throw new RuleError(`unknown field "${key}" in ${where} (known: ${known.join(', ')}).${hint}`);
  }
}

/** A boolean field (default when absent); strings `true`/`false` are taken as dubbo-admin may quote them. */
export function booleanField(rule: Plain, key: string, fallback: boolean): boolean {
  const value = rule[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new RuleError(`${key} must be true or false; got ${describe(value)}`);
}

/** An integer field (default when absent). */
export function integerField(rule: Plain, key: string, fallback: number): number {
  const value = rule[key];
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' && /^[+-]?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n)) return n;
  throw new RuleError(`${key} must be an integer; got ${describe(value)}`);
}

/** A short description of a value for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return `${typeof value} ${String(value)}`;
}

/** An error's message as a sentence (ends with `.`, `?` or `!`). */
export function sentence(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /[.?!]$/.test(message) ? message : `${message}.`;
}
