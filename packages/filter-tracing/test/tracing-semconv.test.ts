// OTEL_SEMCONV_STABILITY_OPT_IN: the Java-compatible attributes by default, the new RPC conventions with `rpc`, both
// with `rpc/dup` (injvm, the SDK's in-memory exporter). Each case is its own application, created after setting
// the variable (the filter reads it when it is created).
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, WeftApplication } from '@weft/core';
import { createTestApp, type TestApp } from '@weft/test-utils';

import { installTracing, spanData, type SpanData } from './support/otel.mjs';

const exporter = installTracing();
const Greeter = defineService('org.acme.Greeter', { hello: { args: [String], returns: String } });
let testApp: TestApp;

beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tracing'], { prefix: 'weft-tracing-semconv' });
});
afterAll(() => testApp.cleanup());

/** One call (and one failing call) in a fresh application with the given opt-in; their spans. */
async function spansWith(optIn: string | undefined): Promise<SpanData[]> {
  if (optIn === undefined) delete process.env['OTEL_SEMCONV_STABILITY_OPT_IN'];
  else process.env['OTEL_SEMCONV_STABILITY_OPT_IN'] = optIn;
  exporter.reset();
  const app = await WeftApplication.start({ root: testApp.root, name: `semconv-${optIn ?? 'default'}`, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  try {
    await app.export(Greeter, {
      hello: (name: string) => {
        if (name === 'boom') throw new RangeError('no boom');
        return `hello ${name}`;
      },
    });
    const greeter = await app.refer(Greeter, { retries: 0, parameters: { copy: false } });
    await greeter.hello('ann');
    await greeter.hello('boom').catch(() => undefined);
    return exporter.getFinishedSpans().map(spanData);
  } finally {
    await app.shutdown({ timeout: 2000 });
    delete process.env['OTEL_SEMCONV_STABILITY_OPT_IN'];
  }
}

const server = (spans: SpanData[], i: number) => spans.filter((s) => s.kind === SpanKind.SERVER)[i];

describe('OTEL_SEMCONV_STABILITY_OPT_IN', () => {
  it('unset: Dubbo 3.3 / old RPC conventions', async () => {
    const spans = await spansWith(undefined);
    expect(server(spans, 0)?.attributes).toEqual({ 'rpc.system': 'apache_dubbo', 'rpc.service': 'org.acme.Greeter', 'rpc.method': 'hello' });
    expect(server(spans, 1)?.attributes).toEqual({
      'rpc.system': 'apache_dubbo',
      'rpc.service': 'org.acme.Greeter',
      'rpc.method': 'hello',
      'error.type': 'RangeError',
      'weft.error.business': true,
    });
    expect(server(spans, 1)?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no boom' });
  });

  it('rpc: the new set only', async () => {
    const spans = await spansWith('rpc');
    expect(server(spans, 0)?.attributes).toEqual({ 'rpc.system.name': 'dubbo', 'rpc.method': 'org.acme.Greeter/hello', 'rpc.response.status_code': 'OK' });
    expect(server(spans, 1)?.attributes).toEqual({
      'rpc.system.name': 'dubbo',
      'rpc.method': 'org.acme.Greeter/hello',
      'rpc.response.status_code': 'UNKNOWN',
      'error.type': 'RangeError',
      'weft.error.business': true,
    });
    const client = spans.find((s) => s.kind === SpanKind.CLIENT);
    expect(client?.attributes).toEqual({
      'rpc.system.name': 'dubbo',
      'rpc.method': 'org.acme.Greeter/hello',
      'server.address': '127.0.0.1',
      'rpc.response.status_code': 'OK',
    });
  });

  it('rpc/dup: both sets (the shared rpc.method takes the new, fully-qualified value)', async () => {
    const spans = await spansWith('http, rpc/dup');
    expect(server(spans, 0)?.attributes).toEqual({
      'rpc.system': 'apache_dubbo',
      'rpc.service': 'org.acme.Greeter',
      'rpc.system.name': 'dubbo',
      'rpc.method': 'org.acme.Greeter/hello',
      'rpc.response.status_code': 'OK',
    });
  });
});
