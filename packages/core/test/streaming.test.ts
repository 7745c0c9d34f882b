import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { Cluster, defineService, ExtensionError, Filter, Logger, RpcContext, RpcError, RpcErrorCode, WeftApplication, type Invocation, type Invoker, type Result } from '@weft/core';

import { FirstCluster } from './support/first-cluster.js';

class SilentLogger extends Logger {
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(): void {}
}

class Tick {
  static readonly fields = { at: Date };
  constructor(
    readonly n: number,
    readonly at: Date,
  ) {}
}

class Boom extends Error {}

const Ticker = defineService('org.acme.Ticker', {
  countdown: { args: [Number], returns: Tick, stream: 'server' },
  sum: { args: [Number], returns: Number, stream: 'client' },
  shout: { args: [String], returns: String, stream: 'bidi' },
  broken: { returns: Number, stream: 'server' },
  whoami: { returns: String, stream: 'server' },
});

/** A provider filter making an RpcContext current, as the context filter does. */
class ContextSetting extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const context = new RpcContext('provider', invocation, invoker.getUrl());
    // As the context filter does by default (the call's synchronous part), or with context.async=true.
    if (invocation.getAttachment('async') === 'true') return RpcContext.runAsync(context, () => invoker.invoke(invocation));
    return RpcContext.run(context, () => invoker.invoke(invocation));
  }
}

const apps: WeftApplication[] = [];
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.shutdown({ timeout: 200 })));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function ticker(copy: boolean, probe: { returned: boolean; pulled: number }) {
  const root = mkdtempSync(join(tmpdir(), 'weft-stream-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
  const app = await WeftApplication.start({ root, name: 't', logger: new SilentLogger() });
  apps.push(app);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
  app.model.getExtensionLoader(Filter).addExtension('contextsetting', ContextSetting, { activate: { group: 'provider' } });
  await app.export(
    Ticker,
    {
      async *countdown(from) {
        try {
          for (let n = from; n > 0; n--) {
            probe.pulled++;
            if (n === 13) throw new Boom('unlucky');
            yield new Tick(n, new Date(Date.UTC(2026, 0, n)));
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
      broken: (() => 42) as never,
      async *whoami() {
        // The generator's body runs when the consumer pulls it, still in the call's context.
        yield String(RpcContext.current()?.getAttachment('user'));
        yield String(RpcContext.current()?.methodName);
        await Promise.resolve();
        // After an await inside the body: only a context carried by AsyncLocalStorage (runAsync) is still there.
        yield RpcContext.current()?.side ?? 'none';
      },
    },
    { parameters: { copy } },
  );
  return app.refer(Ticker, { parameters: { copy } });
}

describe.each([true, false])('streaming over injvm (copy=%s)', (copy) => {
  it('server-streaming, client-streaming and bidi', async () => {
    const probe = { returned: false, pulled: 0 };
    const proxy = await ticker(copy, probe);
    const ticks: Tick[] = [];
    for await (const tick of proxy.countdown(3)) ticks.push(tick);
    expect(ticks.map((t) => t.n)).toEqual([3, 2, 1]);
    expect(ticks[0]?.at).toBeInstanceOf(Date);
    expect(await proxy.sum([1, 2, 3])).toBe(6);
    const words: string[] = [];
    for await (const word of proxy.shout(['a', 'b'])) words.push(word);
    expect(words).toEqual(['A!', 'B!']);
  });

  it('a break returns the provider generator, which is pulled only as far as the consumer read', async () => {
    const probe = { returned: false, pulled: 0 };
    const proxy = await ticker(copy, probe);
    for await (const tick of proxy.countdown(10)) if (tick.n === 8) break;
    await expect.poll(() => probe.returned).toBe(true);
    expect(probe.pulled).toBeLessThanOrEqual(4);
  });

  it('an error thrown mid-stream is thrown from the consumer iterator after the messages before it', async () => {
    const probe = { returned: false, pulled: 0 };
    const proxy = await ticker(copy, probe);
    const seen: number[] = [];
    const failure = await (async () => {
      try {
        for await (const tick of proxy.countdown(15)) seen.push(tick.n);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(seen).toEqual([15, 14]);
    expect((failure as Error).message).toBe('unlucky');
  });

  it("a generator's body runs in the call's RpcContext (set by a provider filter) at every pull, and across its awaits with runAsync", async () => {
    const proxy = await ticker(copy, { returned: false, pulled: 0 });
    const seen: string[] = [];
    for await (const value of proxy.$call('whoami', [], { attachments: { user: 'ann' } })) seen.push(value);
    expect(seen).toEqual(['ann', 'whoami', 'none']);
    const carried: string[] = [];
    for await (const value of proxy.$call('whoami', [], { attachments: { user: 'bo', async: 'true' } })) carried.push(value);
    expect(carried).toEqual(['bo', 'whoami', 'provider']);
  });

  it('an implementation that returns no iterable fails with a message naming the method', async () => {
    const proxy = await ticker(copy, { returned: false, pulled: 0 });
    const failure = await (async () => {
      try {
        for await (const n of proxy.broken()) void n;
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(failure).toBeInstanceOf(RpcError);
    expect((failure as RpcError).code).toBe(RpcErrorCode.SERIALIZATION);
    expect((failure as RpcError).message).toBe(
      'org.acme.Ticker.broken() streams its results: its implementation must return an async iterable (an async generator function), not number.',
    );
  });
});

describe('defineService stream declarations', () => {
  it('refuses an unknown stream kind and a client stream declaring several arguments, naming the method', () => {
    expect(() => defineService('org.acme.Bad', { m: { stream: 'both' as never } })).toThrow(ExtensionError);
    expect(() => defineService('org.acme.Bad', { m: { stream: 'both' as never } })).toThrow(
      'defineService("org.acme.Bad"): m(): stream "both" is not a stream kind (expected "server", "client" or "bidi").',
    );
    expect(() => defineService('org.acme.Bad', { m: { args: [String, Number], stream: 'client' } })).toThrow(
      'defineService("org.acme.Bad"): m(): a client-streaming method takes one argument, the stream of requests; declare the type of each request as args: [Type].',
    );
  });
});
