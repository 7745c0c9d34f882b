// The `tracing` filter across two processes over dubbo://: a consumer here and a traced provider process
// (support/provider-process.mjs, protocol `dubbo`) that reports its spans on stdout. One trace spans consumer →
// provider → the provider's nested downstream dubbo:// call; attributes follow the Dubbo RPC conventions (no
// `rpc.grpc.status_code`: that is gRPC's, and dubbo:// is not gRPC); a business error marks both spans as errors;
// baggage travels; `traceparent` and `baggage` are entries of the request's attachment map on the wire.
// (governance-resilience-observability.md §8.2–§8.4)
import net from 'node:net';

import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, Filter, URL, WeftApplication, type AttachmentValue, type CallableProxy } from '@weft/core';
import { TracingFilter } from '@weft/filter-tracing';
import { DubboStatus, encodeFrame, Flag, FrameDecoder, readAttachments, writeValueBody, type Frame } from '@weft/protocol-dubbo';
import { Hessian2Serialization } from '@weft/serialization-hessian2';
import { createTestApp, freePort, type TestApp } from '@weft/test-utils';

import { installTracing, spanData } from './support/otel.mjs';
import { clientAttributes, expectedParents, helloTrace, parentsOf, serverAttributes, startTracedProvider, type TracedProvider } from './support/traced-provider.ts';

const exporter = installTracing();

// On dubbo:// a business error travels as the Java class it names.
class Declined extends Error {
  static readonly javaClass = 'org.acme.Declined';
  override name = 'Declined';
}
const Greeter = defineService('org.acme.Greeter', {
  hello: { args: [String], returns: String },
  decline: { args: [String], throws: [Declined] },
});

const PACKAGES = ['@weft/core', '@weft/cluster', '@weft/protocol-dubbo', '@weft/serialization-hessian2', '@weft/filter-tracing'];
const silent = { debug() {}, info() {}, warn() {}, error() {} };
let providerRoot: TestApp;
let consumerRoot: TestApp;
let provider: TracedProvider;
let app: WeftApplication;
let greeter: CallableProxy<(typeof Greeter)['methods']>;
let port: number;

beforeAll(async () => {
  providerRoot = createTestApp(PACKAGES, { prefix: 'weft-tracing-dubbo-provider' });
  consumerRoot = createTestApp(PACKAGES, { prefix: 'weft-tracing-dubbo-consumer' });
  port = await freePort();
  provider = await startTracedProvider(providerRoot.root, port, 'dubbo');
  app = await WeftApplication.start({ root: consumerRoot.root, name: 'traced-consumer', logger: silent });
  greeter = await app.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, retries: 0, timeout: 5000 });
});
afterAll(async () => {
  await app?.shutdown({ timeout: 2000 });
  await provider?.stop();
  providerRoot?.cleanup();
  consumerRoot?.cleanup();
});

const providerSpans = () => provider.spans();

/** Runs `call` inside a root span `test-root` whose context carries the baggage `tenant=acme`. */
async function underRoot<T>(call: () => Promise<T>): Promise<T> {
  const root = trace.getTracer('test').startSpan('test-root');
  const baggage = propagation.createBaggage({ tenant: { value: 'acme' } });
  try {
    return await context.with(propagation.setBaggage(trace.setSpan(context.active(), root), baggage), call);
  } finally {
    root.end();
  }
}

describe('one trace across processes over dubbo://', () => {
  it('consumer span → provider span → the implementation’s own span → the nested downstream dubbo:// call', async () => {
    exporter.reset();
    const answer = await underRoot(() => greeter.hello('ann'));
    const t = helloTrace(exporter.getFinishedSpans().map(spanData), await providerSpans());
    // The implementation ran in the server span's context (its answer names the app-work span); baggage reached the
    // nested call's provider, two dubbo:// hops from here.
    expect(answer).toBe(`hello ann; pong ann (baggage acme); in span ${t.work?.spanId}`);
    expect([t.client?.kind, t.server?.kind]).toEqual([SpanKind.CLIENT, SpanKind.SERVER]);
    expect(t.root?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(Object.values(t).map((s) => s?.traceId))).toEqual(new Set([t.root?.traceId]));
    expect(parentsOf(t)).toEqual(expectedParents(t));
    // The Dubbo conventions, and no gRPC status code on dubbo://.
    expect(t.client?.attributes).toEqual(clientAttributes('org.acme.Greeter', 'hello', port));
    expect(t.server?.attributes).toEqual(serverAttributes('org.acme.Greeter', 'hello'));
    expect(t.nestedClient?.attributes).toEqual(clientAttributes('org.acme.Downstream', 'ping', port));
    expect(t.nestedServer?.attributes).toEqual(serverAttributes('org.acme.Downstream', 'ping'));
    expect([t.client?.status, t.server?.status, t.nestedClient?.status, t.nestedServer?.status]).toEqual(Array(4).fill({ code: SpanStatusCode.UNSET }));
  });

  it('a business error marks the client and the server span as errors, with the exception recorded', async () => {
    exporter.reset();
    await expect(greeter.decline('no')).rejects.toThrow('declined: no');
    const client = exporter.getFinishedSpans().map(spanData).find((s) => s.name === 'org.acme.Greeter/decline');
    const server = (await providerSpans()).find((s) => s.name === 'org.acme.Greeter/decline');
    expect(client?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'declined: no' });
    expect(server?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'declined: no' });
    const error = { 'error.type': 'Declined', 'weft.error.business': true };
    expect(client?.attributes).toEqual(clientAttributes('org.acme.Greeter', 'decline', port, error));
    expect(server?.attributes).toEqual(serverAttributes('org.acme.Greeter', 'decline', error));
    expect([client?.events, server?.events]).toEqual([['exception'], ['exception']]);
    expect(server?.traceId).toBe(client?.traceId);
    expect(server?.parentSpanId).toBe(client?.spanId);
    // No active span here: the call is a new trace of its own, not a child of a bogus parent.
    expect(client?.parentSpanId).toBeUndefined();
  });

  it('sends traceparent and baggage as entries of the request’s attachment map', async () => {
    const wire = await capturingPeer();
    try {
      const captured = await app.refer(Greeter, { url: `dubbo://127.0.0.1:${wire.port}`, retries: 0, timeout: 5000 });
      exporter.reset();
      const answer = await underRoot(() => captured.hello('ann'));
      expect(answer).toBe('captured');
      const client = exporter.getFinishedSpans().map(spanData).find((s) => s.name === 'org.acme.Greeter/hello');
      const request = await wire.request;
      expect([request.path, request.method, request.args]).toEqual(['org.acme.Greeter', 'hello', ['ann']]);
      // W3C trace context of the client span (sampled), and the caller's baggage, as plain string attachments.
      expect(request.attachments.get('traceparent')).toBe(`00-${client?.traceId}-${client?.spanId}-01`);
      expect(request.attachments.get('baggage')).toBe('tenant=acme');
      expect(client?.attributes['server.port']).toBe(wire.port);
    } finally {
      await wire.close();
    }
  });

  it('is activated on both sides by its manifest for dubbo:// URLs', () => {
    const url = URL.parse(`dubbo://127.0.0.1:${port}/org.acme.Greeter?interface=org.acme.Greeter&side=consumer`);
    const loader = app.model.getExtensionLoader(Filter);
    expect(loader.getActivateExtensions(url, 'reference.filter', 'consumer').some((f) => f instanceof TracingFilter)).toBe(true);
    expect(loader.getActivateExtensions(url.addParameter('side', 'provider'), 'service.filter', 'provider').some((f) => f instanceof TracingFilter)).toBe(true);
  });
});

/** A request as a dubbo:// provider reads it. */
interface CapturedRequest {
  readonly path: string;
  readonly method: string;
  readonly args: unknown[];
  readonly attachments: Map<string, AttachmentValue>;
}

/**
 * A bare dubbo:// peer on a free loopback port: decodes the first request frame it is sent (the body fields, one
 * String argument, the attachment map) and answers it with the string `captured`.
 */
async function capturingPeer(): Promise<{ port: number; request: Promise<CapturedRequest>; close: () => Promise<void> }> {
  const hessian = new Hessian2Serialization();
  const sockets = new Set<net.Socket>();
  let captured: (request: CapturedRequest) => void = () => undefined;
  const request = new Promise<CapturedRequest>((resolve) => (captured = resolve));
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    const answer = (frame: Frame) => {
      if ((frame.flag & Flag.REQUEST) === 0 || (frame.flag & Flag.EVENT) !== 0) return;
      const input = hessian.createInput(frame.body);
      input.readString(); // the body version
      const path = input.readString() ?? '';
      input.readString(); // the service version
      const method = input.readString() ?? '';
      input.readString(); // the parameter descriptor
      const args = [input.readObject(String)];
      captured({ path, method, args, attachments: readAttachments(input.readObject()) });
      const body = writeValueBody(hessian, 'captured', String, undefined);
      socket.write(encodeFrame(hessian.dubboSerializationId, DubboStatus.OK, frame.idHigh, frame.idLow, body));
    };
    const decoder = new FrameDecoder(0, { frame: answer, oversized: () => undefined, corrupt: () => socket.destroy() });
    socket.on('data', (chunk: Buffer) => decoder.push(chunk));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    request,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
