import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ProxyTracer,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  isSpanContextValid,
  type Attributes,
  type SpanOptions,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { Filter, GrpcStatus, grpcStatusOf, Result, RpcError, RpcErrorCode, type Invocation, type Invoker, type URL } from '@weft/core';

import { TracingDefaults } from './tracing-keys.js';

/**
 * The slot of OpenTelemetry's global registry: every copy of `@opentelemetry/api` 1.x keeps what
 * `setGlobalTracerProvider`, `setGlobalPropagator` and `setGlobalContextManager` registered under this symbol of
 * `globalThis` (`disable()` deletes the entry again), which is how copies installed side by side share one SDK.
 */
const OTEL_GLOBALS = Symbol.for('opentelemetry.js.api.1');

/** The registry's entries the fast path reads (each is absent until the application registers one). */
interface OtelGlobals {
  readonly propagation?: unknown;
  readonly context?: unknown;
}

/**
 * Makes OpenTelemetry's global slot an own property of `globalThis` (value `undefined`) when nothing is registered
 * yet, so the per-call check reads a property that exists: reading an absent key of the global object takes the
 * engine's slow lookup (≈ 6–9 ns, paid twice per injvm call), a present one an inline-cache hit (< 1 ns). Every
 * 1.x API treats `undefined` there as absent (`registerGlobal` creates the registry object with `??`, `getGlobal`
 * reads it with `?.`), so registering an SDK later works as before.
 */
function reserveGlobalsSlot(): void {
  if (!Object.prototype.hasOwnProperty.call(globalThis, OTEL_GLOBALS)) (globalThis as { [OTEL_GLOBALS]?: OtelGlobals })[OTEL_GLOBALS] = undefined;
}

/** The provider a `ProxyTracerProvider` delegates to while no SDK is registered (the API's no-op one). */
const NOOP_TRACER_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate();

/**
 * Whether a call would carry no trace context either way: no propagator or no context manager is registered, so
 * nothing is extracted into the implementation's context, and the caller's active context is the root one or
 * nothing would be injected from it.
 */
function nothingToPropagate(): boolean {
  const globals = (globalThis as { [OTEL_GLOBALS]?: OtelGlobals })[OTEL_GLOBALS];
  return globals === undefined || globals.propagation === undefined || globals.context === undefined;
}

/** Writes the propagation fields (`traceparent`, `tracestate`, `baggage`) as attachments. */
const SETTER: TextMapSetter<Invocation> = {
  set: (invocation, key, value) => {
    invocation.setAttachment(key, value);
  },
};

/** Reads them back on the provider (a non-string attachment is not a propagation field). */
const GETTER: TextMapGetter<Invocation> = {
  get: (invocation, key) => {
    const value = invocation.getAttachment(key);
    return typeof value === 'string' ? value : undefined;
  },
  keys: (invocation) => [...invocation.getAttachments().keys()],
};

/** What one invoker's spans share: kind, the protocol, the attributes that do not depend on the method. */
class InvokerSpans {
  readonly client: boolean;
  readonly tri: boolean;
  readonly interfaceName: string;
  private readonly methods = new Map<string, MethodSpans>();

  constructor(
    private readonly url: URL,
    /** Which attribute sets to emit (see {@link semconvOf}). */
    readonly semconv: Semconv,
  ) {
    this.client = url.getParameter('side') === 'consumer';
    this.tri = url.protocol === 'tri';
    this.interfaceName = url.getParameter('interface') || url.path;
  }

  /** The span name and start attributes of a method's spans (computed once per method). */
  of(invocation: Invocation): MethodSpans {
    let spans = this.methods.get(invocation.methodName);
    if (spans === undefined) this.methods.set(invocation.methodName, (spans = this.describe(invocation)));
    return spans;
  }

  private describe(invocation: Invocation): MethodSpans {
    const idl = invocation.method?.idl;
    // An IDL method is known on the wire (and to gRPC peers) by its IDL name: `SayHello`, not `sayHello`.
    const method = idl?.name ?? invocation.methodName;
    const grpc = this.tri && idl !== undefined;
    const attributes: Attributes = {};
    if (this.semconv.old) {
      attributes['rpc.system'] = grpc ? 'grpc' : TracingDefaults.RPC_SYSTEM;
      attributes['rpc.service'] = this.interfaceName;
      attributes['rpc.method'] = method;
    }
    if (this.semconv.stable) {
      // The RPC conventions' new set (OTEL_SEMCONV_STABILITY_OPT_IN=rpc): one fully-qualified rpc.method.
      attributes['rpc.system.name'] = grpc ? 'grpc' : 'dubbo';
      attributes['rpc.method'] = `${this.interfaceName}/${method}`;
    }
    if (this.client) {
      if (this.semconv.old) attributes['net.peer.name'] = this.url.host;
      attributes['server.address'] = this.url.host;
      if (this.url.port !== 0) {
        if (this.semconv.old) attributes['net.peer.port'] = this.url.port;
        attributes['server.port'] = this.url.port;
      }
    }
    const kind = this.client ? SpanKind.CLIENT : SpanKind.SERVER;
    return { name: `${this.interfaceName}/${method}`, options: Object.freeze({ kind, attributes: Object.freeze(attributes) }) };
  }
}

/** A method's span name and start attributes. */
interface MethodSpans {
  readonly name: string;
  /** The `startSpan` options: kind and attributes. */
  readonly options: SpanOptions;
}

/**
 * Traces every call with OpenTelemetry: the `tracing` extension of `weft.rpc.Filter`.
 *
 * @remarks
 * Extension `tracing` of `weft.rpc.Filter`, application scope, activated in groups `provider` and `consumer` once
 * installed, order MIN+50 (Dubbo's observation filters), inside `context` / `consumercontext`:
 * ```
 *  consumer: cluster → [ consumercontext → tracing → … ] → protocol invoker   CLIENT span, injects traceparent
 *  provider: exporter → [ context → tracing → … ] → implementation            SERVER span, extracts it; the
 *                                                                               implementation runs in its context
 * ```
 * Uses only `@opentelemetry/api`: the tracer provider, propagators and context manager are the application's.
 * Without an SDK and with no propagator or no context manager registered, the spans would be no-op ones carrying
 * nothing, so none is made: the call goes straight on. That is checked on every call, so an SDK registered after
 * the first calls is used from the next one on (README, "Without an SDK").
 * Span name `<interface>/<method>`; attributes `rpc.system`
 * (`apache_dubbo`, or `grpc` for an IDL method on `tri`), `rpc.service`, `rpc.method`, on the client
 * `net.peer.name`/`net.peer.port` and `server.address`/`server.port`, on `tri` `rpc.grpc.status_code`. The
 * propagation fields (W3C `traceparent`, `tracestate`, `baggage` with the default propagators) travel as
 * attachments, which `tri` sends as HTTP/2 headers of those names. A business error or a framework failure
 * marks the span as error, records the exception, and sets `error.type` (the error's name, or the `RpcError`
 * code) and `weft.error.business` (`true` for a business error). `OTEL_SEMCONV_STABILITY_OPT_IN=rpc` (read when
 * the filter is created) switches to the new RPC conventions (`rpc.system.name`, fully-qualified `rpc.method`,
 * `rpc.response.status_code`); `rpc/dup` emits both sets. A streaming call passes the chain once and
 * settles when its stream ended: one span, ended with the final status.
 *
 * @example
 * ```ts
 * // Installed: every export and refer is traced with the application's tracer provider.
 * trace.setGlobalTracerProvider(provider);
 * ```
 */
export class TracingFilter extends Filter {
  // What `trace.getTracer(name)` does, keeping the provider: while no SDK is registered it is the API's
  // ProxyTracerProvider and the tracer a ProxyTracer, which resolves the SDK's tracer from it once one is set.
  private readonly provider: TracerProvider = trace.getTracerProvider();
  private readonly tracer: Tracer = this.provider.getTracer(TracingDefaults.TRACER_NAME);
  /** The provider the tracer will take its delegate from, when it is a proxy that may still be given an SDK. */
  private readonly proxy: ProxyTracerProvider | undefined =
    this.tracer instanceof ProxyTracer && this.provider instanceof ProxyTracerProvider ? this.provider : undefined;
  private readonly semconv = semconvOf(process.env['OTEL_SEMCONV_STABILITY_OPT_IN']);
  private readonly spans = new WeakMap<Invoker, InvokerSpans>();
  // Two one-entry caches in front of the WeakMap: an injvm call runs a consumer and a provider chain, alternately.
  private lastInvoker: Invoker | undefined;
  private lastSpans: InvokerSpans | undefined;
  private previousInvoker: Invoker | undefined;
  private previousSpans: InvokerSpans | undefined;

  constructor() {
    super();
    reserveGlobalsSlot();
  }

  /** Starts the span, propagates or restores its context, and ends it with the call's outcome. */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    // No SDK and nothing to carry: the spans would be no-op ones, so none is made (see the class comment). The
    // traced path stays in this function: moved into a method of its own, it made the whole injvm call costlier
    // (callgrind, bench/observability-instructions.mjs: +290 instructions per call) although this check got cheaper.
    if (this.proxy !== undefined && this.proxy.getDelegate() === NOOP_TRACER_PROVIDER && nothingToPropagate()) {
      return invoker.invoke(invocation);
    }
    const spans =
      invoker === this.lastInvoker
        ? (this.lastSpans as InvokerSpans)
        : invoker === this.previousInvoker
          ? (this.previousSpans as InvokerSpans)
          : this.spansOf(invoker);
    const { name, options } = spans.of(invocation);
    let answer: Result | Promise<Result>;
    let span: Span;
    if (spans.client) {
      const parent = context.active();
      span = this.tracer.startSpan(name, options, parent);
      // Nothing to propagate without a span context or baggage (no SDK, no incoming trace): no context is built.
      if (span.isRecording() || hasContext(span) || propagation.getBaggage(parent) !== undefined) {
        propagation.inject(trace.setSpan(parent, span), invocation, SETTER);
      }
      try {
        answer = invoker.invoke(invocation);
      } catch (error) {
        failed(span, spans, error);
        throw error;
      }
    } else {
      const parent = propagation.extract(ROOT_CONTEXT, invocation, GETTER);
      span = this.tracer.startSpan(name, options, parent);
      try {
        // A non-recording span under the root context (no SDK, nothing extracted) has no context to restore.
        answer =
          !span.isRecording() && parent === ROOT_CONTEXT
            ? invoker.invoke(invocation)
            : context.with(trace.setSpan(parent, span), invokeWith, undefined, invoker, invocation);
      } catch (error) {
        failed(span, spans, error);
        throw error;
      }
    }
    if (answer instanceof Result) {
      completed(span, spans, answer);
      return answer;
    }
    return settle(answer, span, spans);
  }

  private spansOf(invoker: Invoker): InvokerSpans {
    let spans = this.spans.get(invoker);
    if (spans === undefined) this.spans.set(invoker, (spans = new InvokerSpans(invoker.getUrl(), this.semconv)));
    this.previousInvoker = this.lastInvoker;
    this.previousSpans = this.lastSpans;
    this.lastInvoker = invoker;
    this.lastSpans = spans;
    return spans;
  }
}

/** Whether a span carries a trace context to propagate (the no-op tracer's span without a parent does not). */
function hasContext(span: Span): boolean {
  const spanContext = span.spanContext();
  return spanContext !== INVALID_SPAN_CONTEXT && isSpanContextValid(spanContext);
}

function invokeWith(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
  return invoker.invoke(invocation);
}

function settle(pending: Promise<Result>, span: Span, spans: InvokerSpans): Promise<Result> {
  return pending.then(
    (result) => {
      completed(span, spans, result);
      return result;
    },
    (error: unknown) => {
      failed(span, spans, error);
      throw error;
    },
  );
}

function completed(span: Span, spans: InvokerSpans, result: Result): void {
  if (result.hasException()) {
    failed(span, spans, result.exception);
    return;
  }
  if (span.isRecording()) {
    if (spans.tri && spans.semconv.old) span.setAttribute('rpc.grpc.status_code', GrpcStatus.OK);
    if (spans.semconv.stable) span.setAttribute('rpc.response.status_code', 'OK');
  }
  span.end();
}

function failed(span: Span, spans: InvokerSpans, error: unknown): void {
  if (span.isRecording()) {
    const rpc = error instanceof RpcError ? error : undefined;
    const business = rpc === undefined || rpc.isBiz;
    const type = rpc !== undefined && !rpc.isBiz ? rpc.code : error instanceof Error ? error.name : typeof error;
    span.setAttribute('error.type', type);
    span.setAttribute('weft.error.business', business);
    const status = rpc?.grpcStatus ?? grpcStatusOf(rpc?.code ?? RpcErrorCode.UNKNOWN);
    if (spans.tri && spans.semconv.old) span.setAttribute('rpc.grpc.status_code', status);
    if (spans.semconv.stable) span.setAttribute('rpc.response.status_code', STATUS_NAMES[status] ?? 'UNKNOWN');
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end();
}



/** The `google.rpc.Code` names, by number (the new conventions' `rpc.response.status_code`). */
const STATUS_NAMES: Readonly<Record<number, string>> = Object.fromEntries(Object.entries(GrpcStatus).map(([name, code]) => [code, name]));

/** Which attribute sets the spans carry: Dubbo's (Java-compatible, the default), the new RPC conventions, or both. */
interface Semconv {
  readonly old: boolean;
  readonly stable: boolean;
}

/**
 * Reads `OTEL_SEMCONV_STABILITY_OPT_IN` (a comma list) as OpenTelemetry instrumentations do: `rpc` → the new set
 * only, `rpc/dup` → both, anything else → the old (Java Dubbo 3.3) set.
 */
function semconvOf(optIn: string | undefined): Semconv {
  const values = (optIn ?? '').split(',').map((v) => v.trim().toLowerCase());
  if (values.includes('rpc/dup')) return { old: true, stable: true };
  if (values.includes('rpc')) return { old: false, stable: true };
  return { old: true, stable: false };
}
