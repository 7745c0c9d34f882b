// Streaming methods of Weft's own (JSON) services over tri, Weft to Weft: `{ stream: 'server' | 'client' | 'bidi' }`
// in defineService, declared types realised per message, executelimit counting a stream in flight until it ends.
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';

import { defineService, RpcError, RpcErrorCode, type ServiceProxy } from '@weft/core';
import { freePort } from '@weft/test-utils';

import { BASE_PACKAGES, Harness } from './support/harness.js';

class Tick {
  static readonly fields = { at: Date };
  constructor(
    readonly n: number,
    readonly at: Date,
  ) {}
}

const Ticker = defineService('org.acme.Ticker', {
  countdown: { args: [Number], returns: Tick, stream: 'server' },
  sum: { args: [Number], returns: Number, stream: 'client' },
  shout: { args: [String], returns: String, stream: 'bidi' },
  upload: { args: [String], returns: Number, stream: 'client' },
  firstOf: { args: [String], returns: String, stream: 'client' },
  echoFirst: { args: [String], returns: String, stream: 'bidi' },
});

/** The consumer's request generator of the upload test, and what the slow provider saw. */
const upload = { pulled: 0, pulledWhileStalled: -1 };

const harness = new Harness([...BASE_PACKAGES, '@weft/filter-executelimit', '@weft/filter-timeout', '@weft/mock']);
afterEach(() => harness.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let lastPort = 0;

async function pair(methods: Record<string, Record<string, number>> = {}, probe = { returned: false }, mock?: string) {
  const port = await freePort();
  lastPort = port;
  const provider = await harness.start('json-stream-provider');
  await provider.export(
    Ticker,
    {
      async *countdown(from) {
        try {
          for (let n = from; n > 0; n--) {
            yield new Tick(n, new Date(Date.UTC(2026, 0, n)));
            await sleep(20);
          }
        } finally {
          probe.returned = true;
        }
      },
      async sum(numbers) {
        let total = 0;
        for await (const n of numbers) total += n;
        return total;
      },
      async *shout(words) {
        for await (const word of words) yield `${word.toUpperCase()}!`;
      },
      async *echoFirst(words) {
        let first = '';
        for await (const word of words) {
          first = word;
          break;
        }
        for (let i = 0; i < 3; i++) {
          await sleep(100);
          yield `${first} ${i}`;
        }
      },
      async firstOf(words) {
        for await (const word of words) return word;
        return '';
      },
      async upload(chunks) {
        let count = 0;
        for await (const chunk of chunks) {
          count += chunk.length > 0 ? 1 : 0;
          if (count === 1) {
            // A slow reader: the consumer must stop being pulled while this one does not read.
            await sleep(500);
            upload.pulledWhileStalled = upload.pulled;
            await sleep(300);
            if (upload.pulled !== upload.pulledWhileStalled) throw new Error('the consumer kept writing while the provider was not reading');
          }
        }
        return count;
      },
    },
    { protocol: 'tri', port, methods },
  );
  const consumer = await harness.start('json-stream-consumer');
  return consumer.refer(Ticker, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000, ...(mock === undefined ? {} : { mock }) });
}

describe('JSON services stream over tri', () => {
  it('types: server/bidi methods return async iterables, client ones take an iterable and return a promise', () => {
    type Proxy = ServiceProxy<typeof Ticker.methods>;
    expectTypeOf<ReturnType<Proxy['countdown']>>().toEqualTypeOf<AsyncIterable<Tick>>();
    expectTypeOf<ReturnType<Proxy['sum']>>().toEqualTypeOf<Promise<number>>();
    expectTypeOf<ReturnType<Proxy['shout']>>().toEqualTypeOf<AsyncIterable<string>>();
  });

  it('server-streaming: each message realised against the declared type (a Date field arrives as a Date)', async () => {
    const ticker = await pair();
    const ticks: Tick[] = [];
    for await (const tick of ticker.countdown(3)) ticks.push(tick);
    expect(ticks.map((t) => t.n)).toEqual([3, 2, 1]);
    expect(ticks[0]).toBeInstanceOf(Tick);
    expect(ticks[0]?.at).toBeInstanceOf(Date);
    expect(ticks[0]?.at.toISOString()).toBe('2026-01-03T00:00:00.000Z');
  });

  it('client-streaming and bidi', async () => {
    const ticker = await pair();
    expect(await ticker.sum([1, 2, 3, 4])).toBe(10);
    const shouted: string[] = [];
    for await (const word of ticker.shout(['hey', 'you'])) shouted.push(word);
    expect(shouted).toEqual(['HEY!', 'YOU!']);
  });

  it('executelimit counts a stream in flight until it ends: a second stream is refused meanwhile, accepted after', async () => {
    const ticker = await pair({ countdown: { executes: 1 } });
    const first = ticker.countdown(5)[Symbol.asyncIterator]();
    expect((await first.next()).value?.n).toBe(5);
    const refused = await (async () => {
      try {
        for await (const tick of ticker.countdown(1)) void tick;
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((refused as RpcError).message).toContain('countdown');
    let rest = 0;
    for (let step = await first.next(); step.done !== true; step = await first.next()) rest++;
    expect(rest).toBe(4);
    const after: number[] = [];
    for await (const tick of ticker.countdown(2)) after.push(tick.n);
    expect(after).toEqual([2, 1]);
  });

  it('the provider timeout filter bounds the whole stream: it ends with timeout and the generator is returned', async () => {
    const probe = { returned: false };
    const ticker = await pair({ countdown: { timeout: 150 } }, probe);
    const seen: number[] = [];
    const failure = await (async () => {
      try {
        for await (const tick of ticker.countdown(1000)) seen.push(tick.n);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(RpcError);
    expect((failure as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect((failure as RpcError).message).toContain('Provider gave up');
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.length).toBeLessThan(20);
    await expect.poll(() => probe.returned).toBe(true);
  });

  it('mock force:return answers a stream without calling: one message, realised as the declared response type', async () => {
    const ticker = await pair({}, { returned: false }, 'force:return hi');
    const seen: unknown[] = [];
    for await (const word of ticker.shout(['x'])) seen.push(word);
    expect(seen).toEqual(['hi']);
  });

  it('a plain-HTTP call of a streaming method is refused with 415, naming the method and what to use', async () => {
    await pair();
    const response = await fetch(`http://127.0.0.1:${lastPort}/org.acme.Ticker/countdown`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[3]',
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      status: '415',
      message: 'org.acme.Ticker.countdown() is a server-streaming method: call it over gRPC (content-type application/grpc), not plain HTTP.',
    });
  });

  it('a slow provider keeps the consumer bounded: its request generator is not pulled while the window is closed', async () => {
    const ticker = await pair({ upload: { timeout: 10_000 } });
    const total = 5000;
    const chunk = 'x'.repeat(1024);
    async function* chunks() {
      for (let i = 0; i < total; i++) {
        upload.pulled++;
        yield chunk;
      }
    }
    expect(await ticker.upload(chunks())).toBe(total);
    expect(upload.pulledWhileStalled).toBeGreaterThan(0);
    // The bound: the consumer's 256 KiB write budget plus the provider's 64 KiB receive window.
    expect(upload.pulledWhileStalled).toBeLessThan((256 + 64) + 64);
  });

  it('a provider answering before the requests ended: the call resolves, the upload is cancelled, the generator returned', async () => {
    const ticker = await pair();
    let returned = false;
    async function* endless() {
      try {
        for (let i = 0; ; i++) yield `word ${i}`;
      } finally {
        returned = true;
      }
    }
    expect(await ticker.firstOf(endless())).toBe('word 0');
    await expect.poll(() => returned).toBe(true);
  });

  it('bidi: a provider that stops reading its requests keeps answering; what the consumer still sends is dropped', async () => {
    const ticker = await pair();
    const chunk = 'x'.repeat(1024);
    let pulled = 0;
    async function* many() {
      for (let i = 0; i < 2000; i++) {
        pulled++;
        yield i === 0 ? 'first' : chunk;
      }
    }
    const replies: string[] = [];
    for await (const reply of ticker.echoFirst(many())) replies.push(reply);
    expect(replies).toEqual(['first 0', 'first 1', 'first 2']);
    expect(pulled).toBe(2000);
  });
});
