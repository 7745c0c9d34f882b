import { Invocation, type ServiceDefinition } from '@weft/core';

/**
 * The `signal` property of provider invocations: an accessor, so the `AbortSignal` (costly to create) exists only
 * once something reads it.
 */
const SIGNAL_PROPERTY: PropertyDescriptor = {
  configurable: true,
  enumerable: true,
  get(this: ProviderInvocation): AbortSignal | undefined {
    return this.readSignal();
  },
  set(this: ProviderInvocation, value: AbortSignal | undefined): void {
    this.writeSignal(value);
  },
};

/**
 * The invocation a Triple server hands to the exported invoker: an `Invocation` whose `signal` aborts when the
 * consumer cancels the call (RST_STREAM, a closed connection, an aborted HTTP/1.1 request).
 *
 * @remarks
 * The signal is created lazily, the first time `signal` is read (the provider `timeout` filter and
 * `RpcContext.signal` read it; a plain call that nobody observes never pays for an `AbortSignal`). A cancellation
 * that happened before the first read yields an already-aborted signal. Assigning `signal` (as the `timeout`
 * filter does, to combine it with its own) replaces it as on any invocation.
 *
 * @example
 * ```ts
 * const invocation = new ProviderInvocation('sayHello', ['world'], Greeter);
 * stream.on('close', () => invocation.abort(new DOMException('cancelled by the consumer', 'AbortError')));
 * ```
 */
export class ProviderInvocation extends Invocation {
  #controller: AbortController | undefined = undefined;
  #assigned: AbortSignal | undefined = undefined;
  #isAssigned = false;
  #abortReason: unknown = undefined;
  #aborted = false;

  constructor(methodName: string, args: unknown[], service: ServiceDefinition | undefined) {
    super(methodName, args, service);
    Object.defineProperty(this, 'signal', SIGNAL_PROPERTY);
  }

  /** Whether the consumer cancelled the call. */
  get cancelled(): boolean {
    return this.#aborted;
  }

  /** Aborts the call's signal (once): the consumer went away. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }

  /** @internal The `signal` getter. */
  readSignal(): AbortSignal | undefined {
    if (this.#isAssigned) return this.#assigned;
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  /** @internal The `signal` setter. */
  writeSignal(value: AbortSignal | undefined): void {
    this.#isAssigned = true;
    this.#assigned = value;
  }
}
