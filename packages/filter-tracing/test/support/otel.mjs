// OpenTelemetry for a test process, as an application would set it up: an SDK tracer provider exporting to memory,
// the AsyncLocalStorage context manager, and the W3C trace-context + baggage propagators.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Installs the SDK globally; returns the exporter holding the finished spans. */
export function installTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  return exporter;
}

/** A finished span as plain data (what the provider process reports on stdout). */
export function spanData(span) {
  return {
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: span.attributes,
    status: span.status,
    events: span.events.map((e) => e.name),
    durationMs: span.duration[0] * 1000 + span.duration[1] / 1e6,
  };
}
