import type { Invocation } from './invocation.js';
import type { Result } from './result.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import type { URL } from './url.js';

/**
 * Something that can be invoked: a remote provider, a local implementation, a filter chain, a cluster.
 *
 * @remarks
 * `invoke` resolves with a {@link Result} when the call reached the service (carrying its value or its
 * business error) and rejects with an `RpcError` on framework failure. `isAvailable()` tells clusters and
 * mock whether calling it makes sense now (e.g. its connection is up). `destroy()` releases resources; a
 * destroyed invoker is unavailable.
 *
 * @example
 * ```ts
 * class EchoInvoker extends Invoker {
 *   constructor(private readonly url: URL) { super(); }
 *   getUrl() { return this.url; }
 *   async invoke(invocation: Invocation) { return Result.of(invocation.args[0]); }
 * }
 * ```
 */
export abstract class Invoker {
  /** The URL describing this invoker (its parameters configure the call). */
  abstract getUrl(): URL;

  /** Performs the call. */
  abstract invoke(invocation: Invocation): Promise<Result>;

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
