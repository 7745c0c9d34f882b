// Without an OpenTelemetry SDK (the API's no-op tracer, no propagator registered): the filter answers as the chain
// does, sets no attachment, and keeps a completed Result synchronous.
import { describe, expect, it } from 'vitest';

import { buildFilterChain, Invocation, Result, URL } from '@weft/core';
import { TracingFilter } from '@weft/filter-tracing';
import { RecordingLogger, StubInvoker } from '@weft/test-utils';

describe('TracingFilter without an SDK', () => {
  it('passes a completed Result through synchronously and injects nothing', () => {
    const url = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?interface=org.acme.Greeter&side=consumer');
    const stub = new StubInvoker(url, () => Result.of('hello'));
    const chain = buildFilterChain(stub, [new TracingFilter()], () => 'tracing', new RecordingLogger());
    const invocation = new Invocation({ methodName: 'sayHello', args: ['ann'] });
    const answer = chain.invoke(invocation);
    expect(answer).toBeInstanceOf(Result);
    expect((answer as Result).value).toBe('hello');
    expect([...invocation.getAttachments().keys()]).toEqual([]);
  });

  it('passes a rejection through unchanged on the provider side', async () => {
    const url = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?interface=org.acme.Greeter&side=provider');
    const failure = new Error('down');
    const stub = new StubInvoker(url, () => Promise.reject(failure));
    const chain = buildFilterChain(stub, [new TracingFilter()], () => 'tracing', new RecordingLogger());
    await expect(chain.invoke(new Invocation({ methodName: 'sayHello', args: ['ann'] }))).rejects.toBe(failure);
    expect(stub.calls).toBe(1);
  });
});
