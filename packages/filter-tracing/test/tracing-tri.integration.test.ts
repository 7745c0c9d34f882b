// The `tracing` filter across two processes over tri: a consumer here and a traced provider process
// (support/provider-process.mjs) that reports its spans on stdout. One trace spans consumer → provider → the
// provider's nested downstream call; the implementation runs in the server span's context (its own span nests
// under it); attributes follow the RPC conventions; a business error marks both spans as errors; baggage travels.
// (governance-resilience-observability.md §8)

import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, Filter, URL, WeftApplication, type CallableProxy } from '@weft/core';
import { TracingFilter } from '@weft/filter-tracing';
import { createTestApp, freePort, type TestApp } from '@weft/test-utils';

import { installTracing, spanData } from './support/otel.mjs';
import { clientAttributes, expectedParents, helloTrace, parentsOf, serverAttributes, startTracedProvider, type TracedProvider } from './support/traced-provider.ts';

const exporter = installTracing();

class Declined extends Error {
  override name = 'Declined';
}
const Greeter = defineService('org.acme.Greeter', {
  hello: { args: [String], returns: String },
  decline: { args: [String], throws: [Declined] },
});

const Ticker = defineService('org.acme.Ticker', { countdown: { args: [Number], returns: Number, stream: 'server' } });

const PACKAGES = ['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/filter-tracing'];
let providerRoot: TestApp;
let consumerRoot: TestApp;
let provider: TracedProvider;
let app: WeftApplication;
let greeter: CallableProxy<(typeof Greeter)['methods']>;
let port: number;

beforeAll(async () => {
  providerRoot = createTestApp(PACKAGES, { prefix: 'weft-tracing-provider' });
  consumerRoot = createTestApp(PACKAGES, { prefix: 'weft-tracing-consumer' });
  port = await freePort();
  provider = await startTracedProvider(providerRoot.root, port);
  app = await WeftApplication.start({ root: consumerRoot.root, name: 'traced-consumer', logger: { debug() {}, info() {}, warn() {}, error() {} } });
  greeter = await app.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000 });
});
afterAll(async () => {
  await app?.shutdown({ timeout: 2000 });
  await provider?.stop();
  providerRoot?.cleanup();
  consumerRoot?.cleanup();
});

const providerSpans = () => provider.spans();

describe('one trace across processes over tri', () => {
  it('consumer span → provider span → the implementation’s own span → the nested downstream call', async () => {
    exporter.reset();
    const root = trace.getTracer('test').startSpan('test-root');
    const baggage = propagation.createBaggage({ tenant: { value: 'acme' } });
    const answer = await context.with(propagation.setBaggage(trace.setSpan(context.active(), root), baggage), () => greeter.hello('ann'));
    root.end();
    const t = helloTrace(exporter.getFinishedSpans().map(spanData), await providerSpans());
    // The implementation ran in the server span's context, so its answer names the app-work span; baggage arrived downstream.
    expect(answer).toBe(`hello ann; pong ann (baggage acme); in span ${t.work?.spanId}`);
    expect(t.client?.kind).toBe(SpanKind.CLIENT);
    expect(t.root?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(Object.values(t).map((s) => s?.traceId))).toEqual(new Set([t.root?.traceId]));
    expect(parentsOf(t)).toEqual(expectedParents(t));
    expect(t.client?.attributes).toEqual(clientAttributes('org.acme.Greeter', 'hello', port, { 'rpc.grpc.status_code': 0 }));
    expect(t.server?.attributes).toEqual(serverAttributes('org.acme.Greeter', 'hello', { 'rpc.grpc.status_code': 0 }));
    expect([t.client?.status.code, t.server?.status.code]).toEqual([SpanStatusCode.UNSET, SpanStatusCode.UNSET]);
  });

  it('a business error marks the client and the server span as errors, with the exception recorded', async () => {
    exporter.reset();
    await expect(greeter.decline('no')).rejects.toThrow('declined: no');
    const client = exporter.getFinishedSpans().map(spanData).find((s) => s.name === 'org.acme.Greeter/decline');
    const server = (await providerSpans()).find((s) => s.name === 'org.acme.Greeter/decline');
    expect(client?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'declined: no' });
    expect(server?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'declined: no' });
    expect([client?.attributes['error.type'], client?.attributes['weft.error.business'], server?.attributes['error.type']]).toEqual(['Declined', true, 'Declined']);
    expect(server?.events).toEqual(['exception']);
    expect(server?.parentSpanId).toBe(client?.spanId);
    // No traceparent without an active span: the call is a new trace of its own, not a child of a bogus parent.
    expect(client?.parentSpanId).toBeUndefined();
  });

  it('a server-streaming call gets one client and one server span, covering the whole stream', async () => {
    exporter.reset();
    const ticker = await app.refer(Ticker, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000 });
    const ticks: number[] = [];
    for await (const n of ticker.countdown(3)) ticks.push(n);
    expect(ticks).toEqual([3, 2, 1]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const clients = exporter.getFinishedSpans().map(spanData).filter((s) => s.name === 'org.acme.Ticker/countdown');
    const servers = (await providerSpans()).filter((s) => s.name === 'org.acme.Ticker/countdown');
    expect([clients.length, servers.length]).toEqual([1, 1]);
    expect(servers[0]?.parentSpanId).toBe(clients[0]?.spanId);
    // Three ticks 25 ms apart: the spans end with the stream, not when it was set up.
    expect(servers[0]?.durationMs).toBeGreaterThanOrEqual(70);
    expect(clients[0]?.durationMs).toBeGreaterThanOrEqual(70);
  });

  it('is activated on both sides by its manifest', () => {
    const url = URL.parse(`tri://127.0.0.1:${port}/org.acme.Greeter?interface=org.acme.Greeter&side=consumer`);
    const loader = app.model.getExtensionLoader(Filter);
    expect(loader.getActivateExtensions(url, 'reference.filter', 'consumer').some((f) => f instanceof TracingFilter)).toBe(true);
    expect(loader.getActivateExtensions(url.addParameter('side', 'provider'), 'service.filter', 'provider').some((f) => f instanceof TracingFilter)).toBe(true);
  });
});
