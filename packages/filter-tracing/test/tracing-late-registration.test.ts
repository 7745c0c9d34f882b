// The filter's fast path without an SDK (no span, no context) is re-checked on every call: what the application
// registers after the first calls is used from the next call on — an SDK (spans appear), or a propagator with a
// context manager (the no-op tracer passes an incoming trace through to downstream calls, as before).
import { context, propagation, ProxyTracer, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { buildFilterChain, defineService, Invocation, Result, URL, WeftApplication, type Invoker } from '@weft/core';
import { TracingFilter } from '@weft/filter-tracing';
import { createTestApp, RecordingLogger, StubInvoker } from '@weft/test-utils';

import { installTracing, spanData } from './support/otel.mjs';

const Greeter = defineService('org.acme.Greeter', { hello: { args: [String], returns: String } });
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

afterEach(() => {
  vi.restoreAllMocks();
  trace.disable();
  propagation.disable();
  context.disable();
});

/** A provider chain whose implementation makes a downstream call through a consumer chain (one filter for both). */
function nested(filter: TracingFilter): { provider: Invoker; downstream: StubInvoker } {
  const downstreamUrl = URL.parse('tri://127.0.0.1:50052/org.acme.Echo?interface=org.acme.Echo&side=consumer');
  const downstream = new StubInvoker(downstreamUrl, () => Result.of('echo'));
  const consumer = buildFilterChain(downstream, [filter], () => 'tracing', new RecordingLogger());
  const providerUrl = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?interface=org.acme.Greeter&side=provider');
  const implementation = new StubInvoker(providerUrl, () => consumer.invoke(new Invocation({ methodName: 'echo', args: [] })));
  return { provider: buildFilterChain(implementation, [filter], () => 'tracing', new RecordingLogger()), downstream };
}

function incoming(): Invocation {
  const invocation = new Invocation({ methodName: 'hello', args: ['ann'] });
  invocation.setAttachment('traceparent', TRACEPARENT);
  return invocation;
}

describe('TracingFilter registration after the first calls', () => {
  it('makes no span at all while there is no SDK and nothing to propagate', () => {
    const startSpan = vi.spyOn(ProxyTracer.prototype, 'startSpan');
    const { provider, downstream } = nested(new TracingFilter());
    expect((provider.invoke(incoming()) as Result).value).toBe('echo');
    expect(startSpan).not.toHaveBeenCalled();
    expect(downstream.reached[0]?.getAttachment('traceparent')).toBeUndefined();
    // A propagator alone (no context manager) carries nothing either: still no span.
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    expect((provider.invoke(incoming()) as Result).value).toBe('echo');
    expect(startSpan).not.toHaveBeenCalled();
    expect(downstream.reached[1]?.getAttachment('traceparent')).toBeUndefined();
  });

  it('passes an incoming trace through the no-op tracer once a propagator and a context manager are registered', () => {
    const filter = new TracingFilter();
    const { provider, downstream } = nested(filter);
    provider.invoke(incoming());
    expect(downstream.reached[0]?.getAttachment('traceparent')).toBeUndefined();
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    expect((provider.invoke(incoming()) as Result).value).toBe('echo');
    // The no-op tracer's span keeps the extracted span context: the downstream call continues the caller's trace.
    expect(downstream.reached[1]?.getAttachment('traceparent')).toBe(TRACEPARENT);
  });

  it("reserves OpenTelemetry's global slot as absent: the API still registers into it, and an existing registry is kept", () => {
    const slot = Symbol.for('opentelemetry.js.api.1');
    const globals = globalThis as { [key: symbol]: unknown };
    const saved = globals[slot];
    delete globals[slot];
    try {
      const filter = new TracingFilter();
      // An own property holding undefined (so the per-call check is a property hit), which the API treats as absent.
      expect(Object.prototype.hasOwnProperty.call(globalThis, slot)).toBe(true);
      expect(globals[slot]).toBeUndefined();
      const exporter = installTracing();
      expect(globals[slot]).toMatchObject({ version: expect.any(String) });
      const { provider } = nested(filter);
      expect((provider.invoke(incoming()) as Result).value).toBe('echo');
      expect(exporter.getFinishedSpans().map((s) => s.kind)).toEqual([SpanKind.CLIENT, SpanKind.SERVER]);
      // A filter created while the registry exists leaves it as it is.
      const registry = globals[slot];
      void new TracingFilter();
      expect(globals[slot]).toBe(registry);
    } finally {
      trace.disable();
      propagation.disable();
      context.disable();
      if (saved === undefined) delete globals[slot];
      else globals[slot] = saved;
    }
  });

  it('records spans from the first call after an SDK is registered (real chains, injvm)', async () => {
    const testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tracing'], { prefix: 'weft-tracing-late' });
    const app = await WeftApplication.start({ root: testApp.root, name: 'late-sdk', logger: silent });
    try {
      await app.export(Greeter, { hello: (name: string) => `hello ${name}` });
      const greeter = await app.refer(Greeter, { parameters: { copy: false } });
      expect(await greeter.hello('before')).toBe('hello before');
      const exporter = installTracing();
      expect(await greeter.hello('after')).toBe('hello after');
      const spans = exporter.getFinishedSpans().map(spanData);
      expect(spans.map((s) => [s.name, s.kind])).toEqual([
        ['org.acme.Greeter/hello', SpanKind.SERVER],
        ['org.acme.Greeter/hello', SpanKind.CLIENT],
      ]);
      const [server, client] = spans;
      expect(server?.traceId).toBe(client?.traceId);
      expect(server?.parentSpanId).toBe(client?.spanId);
    } finally {
      await app.shutdown({ timeout: 2000 });
      testApp.cleanup();
    }
  });
});
