// A trace started by a grpc-js client instrumented with OpenTelemetry (@opentelemetry/instrumentation-grpc, in a
// child process: support/grpc-js-client.cjs) continues inside a Weft provider over tri: the standard `traceparent`
// gRPC metadata header arrives as the attachment the `tracing` filter extracts, and the provider's SERVER span
// (rpc.system=grpc for a protobuf method on tri) is the child of the grpc-js CLIENT span.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { SpanKind, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { WeftApplication } from '@weft/core';
import { defineProtoService } from '@weft/serialization-protobuf';
import { createTestApp, freePort, type TestApp } from '@weft/test-utils';

import { Traced as TracedDesc } from './gen/weft/tracing/v1/traced_pb.js';
import { installTracing, spanData } from './support/otel.mjs';

const exporter = installTracing();
const Traced = defineProtoService(TracedDesc);
const client = fileURLToPath(new globalThis.URL('./support/grpc-js-client.cjs', import.meta.url));
const proto = fileURLToPath(new globalThis.URL('./proto/weft/tracing/v1/traced.proto', import.meta.url));

let testApp: TestApp;
let app: WeftApplication;
let port: number;

beforeAll(async () => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/serialization-protobuf', '@weft/filter-tracing'], { prefix: 'weft-tracing-grpc' });
  app = await WeftApplication.start({ root: testApp.root, name: 'traced-grpc-provider', logger: { debug() {}, info() {}, warn() {}, error() {} } });
  port = await freePort();
  await app.export(
    Traced,
    {
      where: (request) => {
        const seen = trace.getActiveSpan()?.spanContext();
        return { text: `seen ${request.text}`, traceId: seen?.traceId ?? '', spanId: seen?.spanId ?? '' };
      },
    },
    { protocol: 'tri', host: '127.0.0.1', port },
  );
});
afterAll(async () => {
  await app?.shutdown({ timeout: 2000 });
  testApp?.cleanup();
});

describe('a grpc-js client instrumented with OpenTelemetry', () => {
  it('continues its trace inside the Weft provider', async () => {
    exporter.reset();
    const { stdout } = await promisify(execFile)(process.execPath, [client, String(port), proto], { timeout: 15_000 });
    const outcome = JSON.parse(stdout.trim()) as {
      error: string | null;
      reply: { text: string; traceId: string; spanId: string };
      spans: { name: string; kind: number; traceId: string; spanId: string; parentSpanId?: string }[];
    };
    expect(outcome.error).toBeNull();
    const grpcClient = outcome.spans.find((s) => s.kind === SpanKind.CLIENT);
    const root = outcome.spans.find((s) => s.name === 'client-root');
    expect(grpcClient?.name).toBe('grpc.weft.tracing.v1.Traced/Where');
    expect(grpcClient?.parentSpanId).toBe(root?.spanId);
    const server = exporter.getFinishedSpans().map(spanData).find((s) => s.kind === SpanKind.SERVER);
    expect(server?.name).toBe('weft.tracing.v1.Traced/Where');
    expect(server?.traceId).toBe(root?.traceId);
    expect(server?.parentSpanId).toBe(grpcClient?.spanId);
    expect(server?.attributes).toEqual({
      'rpc.system': 'grpc',
      'rpc.service': 'weft.tracing.v1.Traced',
      'rpc.method': 'Where',
      'rpc.grpc.status_code': 0,
    });
    // The implementation ran inside the server span.
    expect(outcome.reply).toEqual({ text: 'seen from grpc-js', traceId: root?.traceId, spanId: server?.spanId });
  });
});
