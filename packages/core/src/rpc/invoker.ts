import type { Invocation } from './invocation.js';
import type { Result } from './result.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import type { URL } from './url.js';

/**
 * Something that can be invoked: a remote provider, a local implementation, a filter chain, a cluster.
 *
 * @remarks
 * `invoke` answers with a {@link Result} when the call reached the service (carrying its value or its
 * business error) and rejects with an `RpcError` on framework failure. The answer is the `Result` itself when
 * the call completed synchronously (a synchronous implementation behind `injvm`, a mock, a short-circuiting
 * filter) and a promise of it otherwise — Dubbo's completed `AsyncRpcResult`; post-process it with
 * {@link whenSettled}, or `await` it. Framework failures should be returned as rejected promises; a synchronous
 * throw is tolerated by every caller in Weft and treated the same. `isAvailable()` tells clusters and
 * mock whether calling it makes sense now (e.g. its connection is up). `destroy()` releases resources; a
 * destroyed invoker is unavailable.
 *
 * @example
 * ```ts
 * class EchoInvoker extends Invoker {
 *   constructor(private readonly url: URL) { super(); }
 *   getUrl() { return this.url; }
 *   invoke(invocation: Invocation) { return Result.of(invocation.args[0]); } // completed: no promise needed
 * }
 * ```
 */
export abstract class Invoker {
  /** The URL describing this invoker (its parameters configure the call). */
  abstract getUrl(): URL;

  /** Performs the call: the completed `Result`, or a promise of it (see the remarks). */
  abstract invoke(invocation: Invocation): Result | Promise<Result>;

  /**
   * The service this invoker calls, when it knows it (the provider's `ServiceInvoker`, and filter chains around
   * it, do): protocols use it to realise arguments against the declared types. @defaultValue undefined
   */
  getService(): ServiceDefinition | undefined {
    return undefined;
  }

  /** Whether calls can be made now. @defaultValue true */
  isAvailable(): boolean {
    return true;
  }

  /** Releases resources. @defaultValue no-op */
  destroy(): void | Promise<void> {}
}
