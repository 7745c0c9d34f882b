import type { Invocation, Invoker, URL } from '@weft/core';

import { ConditionClause } from './condition-matcher.js';

/** Dubbo's tokenizer: a run of separators, blanks, then a token. */
const ROUTE_PATTERN = /([&!=,]*)\s*([^&!=,\s]+)/g;

/** A condition rule's text could not be parsed: the message is Dubbo's, naming the part and the position. */
export class ConditionSyntaxError extends Error {
  override readonly name = 'ConditionSyntaxError';
}

/** A conjunction of clauses, by key; an empty one never matches (Dubbo's `matchCondition`). */
export type Condition = ReadonlyMap<string, ConditionClause>;

/**
 * Parses one side of a rule (`host = 10.20.* & method = find*`) into clauses keyed by their key.
 * @example
 * ```ts
 * [...parseCondition('host = 10.20.* & method = find*').keys()]; // ['host', 'method']
 * ```
 * @throws {@link ConditionSyntaxError} with Dubbo's message.
 */
export function parseCondition(part: string): Map<string, ConditionClause> {
  const condition = new Map<string, ConditionClause>();
  let clause: ConditionClause | undefined;
  let values: Set<string> | undefined;
  for (const match of part.matchAll(ROUTE_PATTERN)) {
    const separator = match[1]!;
    const content = match[2]!;
    if (separator === '') {
      clause = new ConditionClause(content);
      condition.set(content, clause);
    } else if (separator === '&') {
      clause = condition.get(content);
      if (clause === undefined) {
        clause = new ConditionClause(content);
        condition.set(content, clause);
      }
    } else if (separator === '=' || separator === '!=') {
      if (clause === undefined) throw syntaxError(part, separator, match.index, content);
      values = separator === '=' ? clause.matches : clause.mismatches;
      values.add(content);
    } else if (separator === ',') {
      if (values === undefined || values.size === 0) throw syntaxError(part, separator, match.index, content);
      values.add(content);
    } else {
      throw syntaxError(part, separator, match.index, content);
    }
  }
  return condition;
}

function syntaxError(part: string, separator: string, index: number, content: string): ConditionSyntaxError {
  return new ConditionSyntaxError(`Illegal route rule "${part}", The error char '${separator}' at index ${index} before "${content}".`);
}

/**
 * One condition rule (`when => then`), compiled: Dubbo's `ConditionStateRouter` for one rule text.
 *
 * @remarks
 * `consumer.` and `provider.` are deleted from the whole text first; the text splits at the first `=>`; a blank
 * or `true` when-part matches every call; a blank or `false` then-part sends matching calls nowhere (a
 * blocklist). The when-part reads the consumer URL and the invocation; the then-part reads each provider's
 * registered URL, `$name` values resolved from the consumer URL. Semantics are listed in the package README.
 *
 * @example
 * ```ts
 * const rule = ConditionRule.parse('host = 10.20.* & method = find* => host != 10.20.153.11', false);
 * ```
 * @throws {@link ConditionSyntaxError} for text Dubbo's parser refuses, or a blank rule.
 */
export class ConditionRule {
  private constructor(
    /** The rule text as given. */
    readonly text: string,
    readonly when: Condition,
    /** `undefined`: the blocklist form (no then-part). */
    readonly then: Condition | undefined,
    readonly force: boolean,
  ) {}

  /** Compiles a rule text. */
  static parse(text: string, force: boolean): ConditionRule {
    if (text.trim() === '') throw new ConditionSyntaxError('Illegal route rule!');
    const rule = text.replaceAll('consumer.', '').replaceAll('provider.', '');
    const arrow = rule.indexOf('=>');
    const whenText = arrow < 0 ? '' : rule.slice(0, arrow).trim();
    const thenText = arrow < 0 ? rule.trim() : rule.slice(arrow + 2).trim();
    const when = whenText === '' || whenText === 'true' ? new Map() : parseCondition(whenText);
    const then = thenText === '' || thenText === 'false' ? undefined : parseCondition(thenText);
    return new ConditionRule(text, when, then, force);
  }

  /** Whether the when-part reads arguments or attachments (then its outcome is not decided by the method alone). */
  get readsInvocation(): boolean {
    for (const clause of this.when.values()) if (clause.kind !== 'url') return true;
    return false;
  }

  /** Whether a call is concerned by this rule. */
  matchWhen(consumerUrl: URL, invocation: Invocation): boolean {
    if (this.when.size === 0) return true;
    for (const clause of this.when.values()) if (!clause.isMatch(consumerUrl, undefined, invocation, true)) return false;
    return true;
  }

  /** Whether a provider (its registered URL) satisfies the then-part. */
  matchThen(providerUrl: URL, consumerUrl: URL): boolean {
    const then = this.then;
    if (then === undefined || then.size === 0) return false;
    for (const clause of then.values()) if (!clause.isMatch(providerUrl, consumerUrl, undefined, false)) return false;
    return true;
  }

  /**
   * Routes with a precomputed then-part result: `selected` is the set of providers that satisfy it.
   * Dubbo's `doRoute` from step 2 on.
   */
  route(invokers: readonly Invoker[], consumerUrl: URL, invocation: Invocation, selected: ReadonlySet<Invoker>): readonly Invoker[] {
    if (invokers.length === 0 || !this.matchWhen(consumerUrl, invocation)) return invokers;
    if (this.then === undefined) return [];
    const result = invokers.filter((i) => selected.has(i));
    if (result.length > 0 || this.force) return result;
    return invokers;
  }

  toString(): string {
    return this.text;
  }
}
