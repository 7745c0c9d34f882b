import type { ScopeModel } from '@weft/core';

import { parseMockAction, type MockAction } from './mock-expression.js';
import { MockLiteral } from './mock-literal.js';

/**
 * Parsed mock expressions and `return` literals of one application, by raw value: each value is parsed once,
 * however many methods (an interface-level `mock`) and references use it.
 *
 * @remarks Filled when references are validated (refer and override time) and read by the mock invokers when
 * they degrade a call. Bounded: past `capacity` distinct values (default 256) the oldest entries are dropped, so
 * a stream of pushed overrides cannot grow it without limit. Values that do not parse are never cached (the
 * error is thrown each time). One per application scope: `MockExpressionCache.of(app.model)`.
 * @example
 * ```ts
 * const cache = MockExpressionCache.of(app.model);
 * cache.action('fail:return {name: "ann"}'); // { kind: 'return', text: '{name: "ann"}' }
 * cache.literal('{name: "ann"}').valueFor(Users.getMethod('find'));
 * ```
 */
export class MockExpressionCache {
  private readonly actions = new Map<string, MockAction>();
  private readonly literals = new Map<string, MockLiteral>();

  constructor(private readonly capacity = 256) {}

  /** The cache of an application scope, created on first use. */
  static of(scope: ScopeModel): MockExpressionCache {
    if (!scope.hasService(MockExpressionCache)) scope.registerService(MockExpressionCache, new MockExpressionCache());
    return scope.getService(MockExpressionCache);
  }

  /** {@link parseMockAction} of a raw value, parsed on first use. @throws what `parseMockAction` throws. */
  action(raw: string): MockAction {
    let action = this.actions.get(raw);
    if (action === undefined) {
      action = parseMockAction(raw);
      remember(this.actions, raw, action, this.capacity);
    }
    return action;
  }

  /** The parsed literal of a `return` text. */
  literal(text: string): MockLiteral {
    let literal = this.literals.get(text);
    if (literal === undefined) {
      literal = MockLiteral.parse(text);
      remember(this.literals, text, literal, this.capacity);
    }
    return literal;
  }
}

function remember<V>(map: Map<string, V>, key: string, value: V, capacity: number): void {
  if (map.size >= capacity) map.delete(map.keys().next().value as string);
  map.set(key, value);
}
