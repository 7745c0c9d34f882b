import { AsyncResource } from 'node:async_hooks';

import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import type { Invocation } from '../rpc/invocation.js';
import { Invoker } from '../rpc/invoker.js';
import { PendingResult } from '../rpc/pending-result.js';
import { Result } from '../rpc/result.js';
import { RpcContext } from '../rpc/rpc-context.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { isStreamSource, StreamPort } from '../rpc/stream-port.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';

type Method = (...args: unknown[]) => unknown;

function toException(error: unknown): Result {
  return Result.ofException(error);
}

/**
 * The answer for an object the implementation returned: a {@link PendingResult} settled by the promise (or any
 * thenable) — the one promise hop of the call, every outer layer chains on the pending result.
 */
function resultOf(out: object | null): Result | Promise<Result> {
  if (out instanceof Promise) {
    // One reaction on the native promise (two small closures): cheaper than an async function's frame and promise.
    const pending = new PendingResult<Result>();
    out.then(
      (value: unknown) => pending.resolve(Result.of(value)),
      (error: unknown) => pending.resolve(Result.ofException(error)),
    );
    return pending;
  }
  if (isThenable(out)) {
    const pending = new PendingResult<Result>();
    void settleWith(pending, out);
    return pending;
  }
  return Result.of(out);
}

/** Settles `pending` with a foreign thenable's outcome (awaited as a native promise would be). */
async function settleWith(pending: PendingResult<Result>, out: PromiseLike<unknown>): Promise<void> {
  let value: unknown;
  try {
    value = await out;
  } catch (error) {
    pending.resolve(Result.ofException(error));
    return;
  }
  pending.resolve(Result.of(value));
}

/** Calls an implementation's method; one argument — the common case — is cheaper as a `call` than an `apply`. */
function callMethod(method: Method, implementation: object, args: unknown[]): unknown {
  return args.length === 1 ? method.call(implementation, args[0]) : method.apply(implementation, args);
}

/** @internal How {@link ServiceInvoker.invokeCopied} copies an answer back to the caller. */
export interface ResultCopy {
  result(result: Result, invocation: Invocation): Result;
}

/** Settles a copied call's pending result; a copy that throws (an unserialisable value) rejects it. */
function settleCopied(pending: PendingResult<Result>, copy: ResultCopy, result: Result, invocation: Invocation): void {
  let copied: Result;
  try {
    copied = copy.result(result, invocation);
  } catch (error) {
    pending.reject(error);
    return;
  }
  pending.resolve(copied);
}

/** A promise of another realm or library (anything with a `then` method) is awaited like a native one. */
function streamEnded(reason: unknown): Result {
  return reason === undefined ? Result.of(undefined) : Result.ofException(reason);
}

async function* fromSync(source: Iterable<unknown>): AsyncGenerator<unknown, void, undefined> {
  yield* source;
}

/**
 * `source` pulled in the async context of the call (its filters' `RpcContext`): a generator's body runs on its
 * first `next()`, which the protocol makes from its own context, so `RpcContext.current()` would not be the call's.
 */
function boundToContext(source: AsyncIterable<unknown>): AsyncIterable<unknown> {
  const iterator = source[Symbol.asyncIterator]();
  // The call's context as `RpcContext.run` set it (the synchronous kind), restored around every pull.
  const context = RpcContext.current();
  const pull = (): Promise<IteratorResult<unknown>> => iterator.next();
  const end = (): Promise<IteratorResult<unknown>> => iterator.return?.() ?? Promise.resolve({ done: true, value: undefined });
  const next = AsyncResource.bind(context === undefined ? pull : () => RpcContext.run(context, pull));
  const finish = AsyncResource.bind(context === undefined ? end : () => RpcContext.run(context, end));
  const bound: AsyncIterator<unknown> = { next, return: finish };
  return { [Symbol.asyncIterator]: () => bound };
}

function toAsyncIterable(source: AsyncIterable<unknown> | Iterable<unknown>): AsyncIterable<unknown> {
  return Symbol.asyncIterator in source ? source : fromSync(source);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * The provider-side invoker that calls a service implementation.
 *
 * @remarks
 * Whatever the implementation throws or rejects with is a **business error**: it becomes a `Result` carrying
 * it (never a rejection), so filters see it in `onResponse` and consumers never retry or mock it. A returned
 * promise (or any thenable) is awaited; a plain value (or a synchronous throw) answers with a completed `Result`
 * at once, so a synchronous implementation costs no promise anywhere on the call path. A method the service
 * does not declare rejects with `RpcError` `method-not-found`. Methods are looked up once, at export; a method the implementation only inherits from
 * `Object.prototype` (`toString`, `constructor`…) counts as missing.
 *
 * @example
 * ```ts
 * const invoker = new ServiceInvoker(Greeter, { sayHello: (n: string) => `hi ${n}` }, providerUrl);
 * ```
 * @throws `ERR_SPI_INVALID_PARAMETER` when the implementation lacks a declared method.
 */
export class ServiceInvoker extends Invoker {
  private readonly methods = new Map<string, Method>();
  /** Methods whose results stream (server- and bidi-streaming). */
  private readonly streaming = new Set<string>();

  constructor(
    readonly service: ServiceDefinition,
    private readonly implementation: object,
    private readonly url: URL,
  ) {
    super();
    const missing: string[] = [];
    for (const name of service.methodNames) {
      const fn = (implementation as Record<string, unknown>)[name];
      // `toString`, `constructor`… inherited from Object.prototype do not implement a declared method.
      if (typeof fn === 'function' && fn !== (Object.prototype as Record<string, unknown>)[name]) this.methods.set(name, fn as Method);
      else missing.push(name);
      const stream = service.getMethod(name)?.stream;
      if (stream === 'server' || stream === 'bidi') this.streaming.add(name);
    }
    if (missing.length > 0) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `The implementation exported for ${service.name} lacks method(s) ${missing.join(', ')} declared by the service definition.`,
      );
    }
  }

  getUrl(): URL {
    return this.url;
  }

  override getService(): ServiceDefinition {
    return this.service;
  }

  invoke(invocation: Invocation): Result | Promise<Result> {
    const method = this.methods.get(invocation.methodName);
    if (method === undefined) return this.methodNotFound(invocation);
    const args = invocation.args;
    let out: unknown;
    try {
      out = callMethod(method, this.implementation, args);
    } catch (error) {
      return Result.ofException(error);
    }
    if (this.streams(invocation.methodName)) return this.stream(invocation, out);
    // A synchronous implementation completes the call here: its Result travels back without a promise.
    return typeof out === 'object' || typeof out === 'function' ? resultOf(out) : Result.of(out);
  }

  /**
   * @internal The in-process protocol's copying call to a bare implementation (no provider filter, no token): the
   * implementation gets `args` (already copied) and the answer is passed through `copy` — for a waiting call inside
   * the one reaction on the implementation's promise, so the call needs no second pending result and no
   * provider-side invocation (nothing on the provider side can observe one). Not for streaming methods.
   */
  invokeCopied(invocation: Invocation, args: unknown[], copy: ResultCopy): Result | Promise<Result> {
    const method = this.methods.get(invocation.methodName);
    if (method === undefined) return this.methodNotFound(invocation);
    let out: unknown;
    try {
      out = callMethod(method, this.implementation, args);
    } catch (error) {
      return copy.result(Result.ofException(error), invocation);
    }
    if (out instanceof Promise) {
      const pending = new PendingResult<Result>();
      out.then(
        (value: unknown) => settleCopied(pending, copy, Result.of(value), invocation),
        (error: unknown) => settleCopied(pending, copy, Result.ofException(error), invocation),
      );
      return pending;
    }
    const answer = typeof out === 'object' || typeof out === 'function' ? resultOf(out) : Result.of(out);
    if (answer instanceof Result) return copy.result(answer, invocation);
    return answer.then((result) => copy.result(result, invocation));
  }

  /** @internal Whether `methodName` streams its results (server- or bidi-streaming). */
  streams(methodName: string): boolean {
    // Most services stream nothing: no set lookup then.
    return this.streaming.size > 0 && this.streaming.has(methodName);
  }

  /**
   * The result of a streaming method: its responses go to the invocation's {@link StreamPort} (opened here, read by
   * the protocol), and the Result settles when the reader stopped — OK after the end, else with the failure (the
   * implementation threw, the consumer cancelled). Without a port (nothing reads it as a stream), the iterable is
   * the Result's value.
   */
  private stream(invocation: Invocation, out: unknown): Result | Promise<Result> {
    if (!isStreamSource(out)) {
      if (isThenable(out)) return Promise.resolve(out).then((value) => this.stream(invocation, value), toException);
      return Result.ofException(
        new RpcError(
          RpcErrorCode.SERIALIZATION,
          `${this.service.name}.${invocation.methodName}() streams its results: its implementation must return an async iterable ` +
            `(an async generator function), not ${out === null ? 'null' : typeof out}.`,
        ),
      );
    }
    const port = StreamPort.of(invocation);
    if (port === undefined) return Result.of(out);
    port.open(boundToContext(toAsyncIterable(out)));
    return port.closed.then(streamEnded);
  }

  private methodNotFound(invocation: Invocation): Promise<Result> {
    return Promise.reject(
      new RpcError(
        RpcErrorCode.METHOD_NOT_FOUND,
        `Service ${this.service.name} has no method "${invocation.methodName}" (methods: ${this.service.methodNames.join(', ')}).`,
      ),
    );
  }
}
