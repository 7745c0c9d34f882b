import { URL } from '@weft/core';

import { booleanField, checkFields, describe, integerField, parseRuleDocument, RuleError, RuleUrlKeys } from '../rule-source.js';
import { ConditionRule } from './condition-rule.js';
import { MultiDestinationRule } from './multi-destination-rule.js';

/** The fields of a YAML condition rule (dubbo-admin writes them alphabetically). */
const CONDITION_RULE_FIELDS = ['configVersion', 'scope', 'key', 'force', 'runtime', 'enabled', 'priority', 'dynamic', 'valid', 'conditions'];

/** A parsed rule set: the conditions of one YAML document, or one legacy URL. */
export interface ConditionRuleSet {
  /** Where it came from (the config-centre path, or the registry URL). */
  readonly source: string;
  /** 0 service, 1 provider application, 2 application, 3 legacy URL: the order sets are applied in. */
  readonly rank: number;
  readonly priority: number;
  readonly enabled: boolean;
  readonly rules: readonly (ConditionRule | MultiDestinationRule)[];
}

const SCOPE_RANK: Readonly<Record<string, number>> = { service: 0, 'provider-application': 1, application: 2 };

/**
 * Parses a config-centre condition rule (`<service-key>.condition-router`, `<application>.condition-router`).
 *
 * @remarks The list form (Dubbo 3.0 `conditions: [ "when => then", … ]`), as dubbo-admin writes it; `force`
 * and `enabled` apply to every condition, conditions apply in sequence. `scope` and `key` are informational (the
 * node decides); `runtime` and `priority` are read and checked but, as in Dubbo 3, do not change routing.
 * `configVersion: v3.1` is the multi-destination form (`{from: {match}, to: [{match, weight}]}`); a newer
 * version is refused. An unknown field is refused.
 * @throws {@link RuleError} naming what is wrong.
 */
export function parseConditionYaml(text: string, scope: string, source: string): ConditionRuleSet | undefined {
  const rule = parseRuleDocument(text);
  if (rule === undefined) return undefined;
  checkFields(rule, CONDITION_RULE_FIELDS, 'a condition rule');
  const version = rule['configVersion'];
  let multi = false;
  if (version !== undefined && version !== null) {
    if (typeof version !== 'string') throw new RuleError(`configVersion must be a string such as v3.0; got ${describe(version)}`);
    const v = version.toLowerCase();
    multi = v.startsWith('v3.1');
    if (!multi && v > 'v3.1') throw new RuleError(`configVersion ${version} is newer than this router knows (v3.0 list form, v3.1 multi-destination)`);
  }
  const force = booleanField(rule, 'force', false);
  const enabled = booleanField(rule, 'enabled', true);
  booleanField(rule, 'runtime', true);
  const priority = integerField(rule, 'priority', 0);
  const conditions = rule['conditions'];
  if (!Array.isArray(conditions) || conditions.length === 0) {
    throw new RuleError(`conditions must be a non-empty list of "when => then" strings; got ${describe(conditions)}`);
  }
  if (multi) {
    return { source, rank: SCOPE_RANK[scope] ?? 0, priority, enabled, rules: conditions.map((c: unknown, i: number) => MultiDestinationRule.parse(c, force, `conditions[${i}]`)) };
  }
  const rules = conditions.map((c: unknown, i: number) => {
    if (typeof c !== 'string' && typeof c !== 'number' && typeof c !== 'boolean') {
      throw new RuleError(`conditions[${i}] must be a "when => then" string; got ${describe(c)}`);
    }
    try {
      return ConditionRule.parse(String(c), force);
    } catch (error) {
      throw new RuleError(`conditions[${i}] "${String(c)}": ${(error as Error).message}`);
    }
  });
  return { source, rank: SCOPE_RANK[scope] ?? 0, priority, enabled, rules };
}

/**
 * Parses a legacy `routers` URL: `condition://0.0.0.0/<interface>?rule=<encoded rule>&force=…&priority=…`
 * (or `route://…?router=condition&rule=…`).
 * @throws {@link RuleError} naming what is wrong.
 */
export function parseConditionUrl(url: URL, source: string): ConditionRuleSet {
  const text = decodedRule(url.getParameter('rule'));
  if (text === undefined || text.trim() === '') throw new RuleError('the URL has no rule parameter (rule=<when> => <then>, URL-encoded)');
  const fields: Record<string, unknown> = {};
  for (const key of ['force', 'enabled', 'runtime', 'priority']) {
    const v = url.getParameter(key);
    if (v !== undefined) fields[key] = v;
  }
  const force = booleanField(fields, 'force', false);
  const enabled = booleanField(fields, 'enabled', true);
  booleanField(fields, 'runtime', false);
  const priority = integerField(fields, 'priority', 0);
  let rule: ConditionRule;
  try {
    rule = ConditionRule.parse(text, force);
  } catch (error) {
    throw new RuleError(`rule "${text}": ${(error as Error).message}`);
  }
  return { source, rank: 3, priority, enabled, rules: [rule] };
}

/** Whether a `routers` URL carries a config-centre document. */
export function isConfigCentreRule(url: URL): boolean {
  return url.getParameter(RuleUrlKeys.YAML) !== undefined;
}

/** The `rule` parameter decoded once more, as Dubbo's `getParameterAndDecoded` reads it (kept as is when not encoded). */
function decodedRule(raw: string | undefined): string | undefined {
  if (raw === undefined || !/[%+]/.test(raw)) return raw;
  try {
    return URL.decode(raw);
  } catch {
    return raw;
  }
}
