import { Invocation, type AttachmentValue } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import { PendingResult } from '../rpc/pending-result.js';
import { Result } from '../rpc/result.js';
import { RpcError } from '../rpc/rpc-error.js';
import { isStreamSource, StreamPort } from '../rpc/stream-port.js';
import type { MethodSpec, ServiceDefinition, ServiceProxy } from './service-definition.js';

/** Per-call options for a proxy's `$call`. */
export interface CallOptions {
  /** Aborts the call. */
  readonly signal?: AbortSignal;
  /** Timeout for this call in ms, replacing the configured `timeout` (0: none) — as Dubbo's per-call timeout. */
  readonly timeout?: number;
  /** Attachments sent with the call. */
  readonly attachments?: Readonly<Record<string, AttachmentValue>>;
}

/** Counts calls in flight and refuses new ones once closed (graceful shutdown). */
export interface CallGate {
  /** Counts a call in; returns an error to reject it with instead, when closed. */
  enter(): RpcError | undefined;
  /** Counts a call out. */
  exit(): void;
}

/** A service proxy, plus `$call` for per-call options. */
export type CallableProxy<M extends Record<string, MethodSpec>> = ServiceProxy<M> & {
  /** Calls `method` with per-call options (signal, timeout, attachments). */
  $call<K extends keyof M & string>(
    method: K,
    args: Parameters<ServiceProxy<M>[K]>,
    options?: CallOptions,
  ): ReturnType<ServiceProxy<M>[K]>;
  /** The service definition behind the proxy. */
  readonly $service: ServiceDefinition<M>;
  /** Dubbo's echo test: the provider's `echo` filter answers with `value` without reaching the implementation. */
  $echo<T>(value: T): Promise<T>;
};

/**
 * The calls of one proxy. A class, not closures per proxy: every proxy's methods then reach the same `call`
 * function, so the engine can inline it at every call site instead of seeing a different target per proxy.
 */
class ProxyCalls {
  private readonly unwrap: (result: Result) => unknown;
  private readonly fail: ((error: unknown) => never) | undefined;
  // The resolving functions of the promise being created, handed over by `capture` (synchronously, in `call`).
  private resolveNext: ((value: unknown) => void) | undefined = undefined;
  private rejectNext: ((error: unknown) => void) | undefined = undefined;
  /** The executor of every caller promise: one function per proxy, not a closure per call. */
  private readonly capture = (resolve: (value: unknown) => void, reject: (error: unknown) => void): void => {
    this.resolveNext = resolve;
    this.rejectNext = reject;
  };

  constructor(
    private readonly invoker: Invoker,
    private readonly gate: CallGate | undefined,
  ) {
    this.unwrap = gate
      ? (result: Result) => {
          gate.exit();
          return result.recreate();
        }
      : (result: Result) => result.recreate();
    this.fail = gate
      ? (error: unknown) => {
          gate.exit();
          throw error;
        }
      : undefined;
  }

  call(invocation: Invocation): Promise<unknown> {
    const gate = this.gate;
    const refused = gate?.enter();
    if (refused !== undefined) return Promise.reject(refused);
    const answer = answerOf(this.invoker, invocation);
    if (answer instanceof Result) {
      // Completed synchronously: one settled promise for the caller, no hop.
      gate?.exit();
      return settle(answer);
    }
    if (answer instanceof PendingResult) return this.promiseOf(answer);
    return answer.then(this.unwrap, this.fail);
  }

  /** The caller's native promise of a call's pending outcome: the only promise the consumer side creates. */
  private promiseOf(pending: PendingResult<Result>): Promise<unknown> {
    const promise = new Promise(this.capture);
    pending.deliverTo(this.resolveNext as (value: unknown) => void, this.rejectNext as (error: unknown) => void, this.gate);
    this.resolveNext = this.rejectNext = undefined;
    return promise;
  }
}

// Small helpers, out of line: the per-call path stays within what the engine inlines.

/**
 * The invoker's answer; a synchronous throw becomes a rejection. Clusters have their own copy on purpose: a
 * shared helper would make its `invoker.invoke` call site see every kind of invoker (polymorphic), where each
 * copy sees one kind and the engine inlines it.
 */
function answerOf(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
  try {
    return invoker.invoke(invocation);
  } catch (error) {
    return rejection(error);
  }
}

function rejection(error: unknown): Promise<never> {
  return Promise.reject(RpcError.from(error));
}

/** The caller's promise of a completed result: its value, or its business error as the rejection. */
function settle(result: Result): Promise<unknown> {
  return result.hasException() ? businessRejection(result) : Promise.resolve(result.value);
}

function businessRejection(result: Result): Promise<never> {
  return Promise.reject(result.exception);
}

/** What a streaming call's pending result settled to. */
type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

function succeeded(value: unknown): Outcome {
  return { ok: true, value };
}

function failed(error: unknown): Outcome {
  return { ok: false, error };
}

/**
 * The responses of a server- or bidi-streaming call, as the caller reads them: the call starts on the first
 * `next()`, the responses come through the invocation's {@link StreamPort}, and the stream ends with the call's
 * final status (an error status is thrown from the iterator). Breaking out of the `for await` (or `return()`)
 * closes the port, which cancels the call (the protocol resets its stream).
 */
async function* readStream(calls: ProxyCalls, invocation: Invocation): AsyncGenerator<unknown, void, undefined> {
  const port = StreamPort.attach(invocation);
  const settled = calls.call(invocation).then(succeeded, failed);
  const first = await Promise.race([port.opened, settled]);
  if (isStreamSource(first)) {
    let ended = false;
    try {
      for await (const message of first) yield message;
      ended = true;
    } catch (error) {
      port.close(error);
      const outcome = await settled;
      throw outcome.ok ? error : outcome.error;
    } finally {
      if (!ended) port.close(new DOMException('The consumer stopped reading the stream.', 'AbortError'));
    }
    port.close();
    const outcome = await settled;
    if (!outcome.ok) throw outcome.error;
    return;
  }
  const outcome = first as Outcome;
  if (!outcome.ok) throw outcome.error;
  // Settled without opening the port (a mock, a local answer): its value is the stream, or its only message.
  const value = outcome.value;
  if (isStreamSource(value)) yield* value;
  else if (value !== undefined) yield value;
}

/** The prototype of every proxy: an empty object that itself inherits nothing (immutable). */
const NOTHING: object = Object.freeze(Object.create(null) as object);

/**
 * Creates the consumer-side proxy of a service: one method per declared method, each returning a promise.
 *
 * @remarks
 * A call builds one `Invocation` and hands it to the invoker (the cluster, with its mock wrapper); the result
 * is unwrapped: its value returned, or the business error thrown as the implementation threw it. Framework
 * failures reject with `RpcError`. The methods are built once, at refer time.
 *
 * @example
 * ```ts
 * const greeter = createServiceProxy(Greeter, clusterInvoker);
 * await greeter.sayHello('ann');
 * await greeter.$call('sayHello', ['bo'], { timeout: 200, attachments: { traceId: 't1' } });
 * ```
 */
export function createServiceProxy<M extends Record<string, MethodSpec>>(
  service: ServiceDefinition<M>,
  invoker: Invoker,
  gate?: CallGate,
): CallableProxy<M> {
  const calls = new ProxyCalls(invoker, gate);
  const call = (invocation: Invocation): Promise<unknown> => calls.call(invocation);
  const proxy: Record<string, unknown> = Object.create(NOTHING) as Record<string, unknown>;
  for (const name of service.methodNames) {
    const stream = service.getMethod(name)?.stream;
    proxy[name] =
      stream === 'server' || stream === 'bidi'
        ? (...args: unknown[]) => readStream(calls, Invocation.of(name, args, service))
        : (...args: unknown[]) => calls.call(Invocation.of(name, args, service));
  }
  proxy['$call'] = (method: string, args: unknown[], options: CallOptions = {}) => {
    if (!service.methodDescriptors.has(method)) {
      return Promise.reject(new TypeError(`${service.name} has no method "${method}" (methods: ${service.methodNames.join(', ')}).`));
    }
    const invocation = new Invocation({
      methodName: method,
      args,
      service,
      signal: options.signal,
      attachments: options.attachments,
      timeout: options.timeout,
    });
    const stream = service.getMethod(method)?.stream;
    return stream === 'server' || stream === 'bidi' ? readStream(calls, invocation) : call(invocation);
  };
  proxy['$service'] = service;
  proxy['$echo'] = (value: unknown) => call(Invocation.of('$echo', [value], service));
  return Object.freeze(proxy) as unknown as CallableProxy<M>;
}
