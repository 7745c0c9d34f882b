import {
  maskSecrets,
  Invoker,
  Result,
  RpcError,
  RpcErrorCode,
  type Invocation,
  type MethodDescriptor,
  type ServiceDefinition,
  type URL,
} from '@weft/core';

import { MockExpressionCache } from './mock-expression-cache.js';
import { shorten, type MockAction } from './mock-expression.js';
import type { MockRegistry } from './mock-registry.js';

const MOCKED_MESSAGE = 'mocked exception for service degradation.';

/**
 * Answers a call from the `mock` setting of its URL instead of a provider.
 *
 * @remarks
 * Reads `<method>.mock` (then `mock`) from its URL — the consumer URL, or a `mock://` provider's URL merged with
 * the consumer's — and acts on the parsed expression, parsed once per method:
 * - `return <value>` → a result with the value realised against the method's declared return type (fresh objects
 *   per call);
 * - `throw` → rejects with a non-business `RpcError` (`mocked: true`) "mocked exception for service degradation.";
 * - `throw <Name>` → a result carrying a **new** instance of the named error (declared in the method's `throws`,
 *   or registered in the {@link MockRegistry}) — a business error, as the implementation would have thrown it;
 * - an implementation name (`default` for the interface's) → the registered mock implementation answers; what
 *   it throws is a business error.
 * A value that cannot be realised, or a name nothing is registered under, rejects with an `RpcError` naming the
 * method, the expression and the URL (references validate expressions up front, so this is rare).
 *
 * @example
 * ```ts
 * const invoker = new MockInvoker(URL.parse('mock://0.0.0.0/org.acme.Greeter?sayHello.mock=return+hi'), Greeter, registry);
 * ```
 */
export class MockInvoker extends Invoker {
  private readonly actions = new Map<string, MockAction | RpcError>();

  constructor(
    private readonly url: URL,
    private readonly service: ServiceDefinition,
    private readonly registry: MockRegistry,
    private readonly expressions: MockExpressionCache = new MockExpressionCache(),
  ) {
    super();
  }

  getUrl(): URL {
    return this.url;
  }

  invoke(invocation: Invocation): Result | Promise<Result> {
    const method = invocation.methodName;
    let action = this.actions.get(method);
    if (action === undefined) {
      action = this.parse(method);
      this.actions.set(method, action);
    }
    if (action instanceof RpcError) return Promise.reject(action);
    const descriptor = invocation.method ?? this.service.getMethod(method);
    switch (action.kind) {
      case 'return':
        try {
          return Result.of(this.expressions.literal(action.text).valueFor(descriptor));
        } catch (error) {
          return Promise.reject(
            new RpcError(
              RpcErrorCode.UNKNOWN,
              `mock return invoke error. method: ${method}, mock: ${shorten(action.text)}, url: ${shorten(maskSecrets(this.url), 2000)}: ${(error as Error).message}`,
              { cause: error },
            ),
          );
        }
      case 'throw':
        if (action.errorName === undefined) {
          return Promise.reject(new RpcError(RpcErrorCode.UNKNOWN, MOCKED_MESSAGE, { mocked: true }));
        }
        return this.throwNamed(action.errorName, descriptor);
      case 'implementation':
        return this.callImplementation(action.name, invocation);
    }
  }

  private parse(method: string): MockAction | RpcError {
    const raw = this.url.getMethodParameter(method, 'mock');
    if (raw === undefined || raw.trim() === '') {
      return new RpcError(RpcErrorCode.UNKNOWN, `mock can not be null. method: ${method}, url: ${maskSecrets(this.url)}`);
    }
    try {
      return this.expressions.action(raw);
    } catch (error) {
      return new RpcError(RpcErrorCode.UNKNOWN, `Invalid mock "${shorten(raw)}" for ${method}: ${(error as Error).message}`, { cause: error });
    }
  }

  private throwNamed(name: string, descriptor: MethodDescriptor | undefined): Result | Promise<Result> {
    const declared = descriptor?.throws.find((c) => c.name === name) as (new (message: string) => Error) | undefined;
    const cls = declared ?? this.registry.getError(name);
    if (cls === undefined) {
      return Promise.reject(
        new RpcError(
          RpcErrorCode.UNKNOWN,
          `mock throw error: ${name} argument error: no error class "${name}" is declared by the method or registered ` +
            `(registered: ${this.registry.errorNames().join(', ') || 'none'}).`,
        ),
      );
    }
    let error: Error;
    try {
      error = new cls(MOCKED_MESSAGE);
    } catch (cause) {
      return Promise.reject(new RpcError(RpcErrorCode.UNKNOWN, `mock throw error: ${name} argument error.`, { cause }));
    }
    return Result.ofException(error);
  }

  private callImplementation(name: string, invocation: Invocation): Result | Promise<Result> {
    const implementation = this.registry.getImplementation(this.service.name, name) as Record<string, unknown> | undefined;
    const fn = implementation?.[invocation.methodName];
    if (typeof fn !== 'function') {
      const registered = this.registry.implementationNames(this.service.name);
      return Promise.reject(
        new RpcError(
          RpcErrorCode.UNKNOWN,
          `Failed to create mock implementation ${name === 'default' ? `of ${this.service.name}` : `"${name}"`}: ` +
            (implementation === undefined
              ? `none is registered (registered for ${this.service.name}: ${registered.join(', ') || 'none'}).`
              : `it has no method ${invocation.methodName}.`),
        ),
      );
    }
    let out: unknown;
    try {
      out = (fn as (...args: unknown[]) => unknown).apply(implementation, invocation.args);
    } catch (error) {
      return Result.ofException(error);
    }
    if (out instanceof Promise) return out.then(Result.of, Result.ofException);
    return Result.of(out);
  }
}
