import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** A finished span as plain data. */
export interface SpanData {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly attributes: Record<string, unknown>;
  readonly status: { readonly code: number; readonly message?: string };
  readonly events: readonly string[];
  readonly durationMs: number;
}
export function installTracing(): InMemorySpanExporter;
export function spanData(span: ReadableSpan): SpanData;
