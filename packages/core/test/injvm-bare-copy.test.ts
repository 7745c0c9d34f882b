// The copying injvm call to a bare provider (no provider filter, no token) takes a shorter path: no provider-side
// invocation, one pending result. It must copy and realise exactly as the full path does, both ways, for synchronous
// and asynchronous implementations alike, and keep timeouts, business errors and serialization failures.
import { afterEach, describe, expect, it } from 'vitest';

import { Cluster, defineService, Filter, Logger, RpcError, RpcErrorCode, WeftApplication, type Invocation, type Invoker, type Result } from '@weft/core';

import { createTestApp, type TestApp } from '@weft/test-utils';

import { FirstCluster } from './support/first-cluster.js';

class SilentLogger extends Logger {
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(): void {}
}

class Point {
  x = 0;
  y = 0;
  at = new Date(0);
  static readonly fields = { at: Date };
  norm(): number {
    return Math.abs(this.x) + Math.abs(this.y);
  }
}

class Refused extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
    this.name = 'Refused';
  }
}

const Geo = defineService('org.acme.Geo', {
  move: { args: [Point, Number], returns: Point },
  keep: { args: [Object], returns: Object },
  refuse: { args: [String], returns: String, throws: [Refused] },
  loop: { returns: Object },
  wait: { args: [Number], returns: String },
  stamp: { args: [Date], returns: [Date] },
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

function geo(shared: { kept?: Record<string, unknown>; got?: unknown[] }, async: boolean) {
  const answer = <T>(value: T): T | Promise<T> => (async ? tick().then(() => value) : value);
  return {
    move(p: Point, by: number) {
      (shared.got ??= []).push(p);
      p.x += by; // mutating the received argument must not reach the caller
      const moved = Object.assign(new Point(), { x: p.x, y: p.y + by, at: new Date(p.at.getTime() + by) });
      return answer(moved);
    },
    keep(o: Record<string, unknown>) {
      shared.kept = o;
      return answer(o);
    },
    refuse(why: string) {
      const error = new Refused(`refused: ${why}`, why);
      return async ? tick().then(() => Promise.reject(error)) : (() => { throw error; })();
    },
    loop() {
      const o: Record<string, unknown> = {};
      o['self'] = o;
      return answer(o);
    },
    wait: (ms: number) => new Promise<string>((resolve) => setTimeout(() => resolve(`waited ${ms}`), ms)),
    stamp: (d: Date) => answer([d, new Date(d.getTime() + 1)]),
  };
}

const roots: TestApp[] = [];
const apps: WeftApplication[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.shutdown();
  for (const root of roots.splice(0)) root.cleanup();
});

async function start(async: boolean, providerFilter = false) {
  const testApp = createTestApp([], { prefix: 'weft-bare' });
  roots.push(testApp);
  const app = await WeftApplication.start({ root: testApp.root, name: 't', logger: new SilentLogger() });
  apps.push(app);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
  const seen: string[] = [];
  if (providerFilter) {
    class Seen extends Filter {
      invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
        seen.push(invocation.methodName);
        return invoker.invoke(invocation);
      }
    }
    app.model.getExtensionLoader(Filter).addExtension('seen', Seen, { activate: { group: ['provider'] } });
  }
  const shared: { kept?: Record<string, unknown>; got?: unknown[] } = {};
  await app.export(Geo, geo(shared, async));
  const proxy = await app.refer(Geo);
  return { proxy, shared, seen };
}

for (const async of [false, true]) {
  describe(`injvm copy to a bare provider, ${async ? 'async' : 'sync'} implementation`, () => {
    it('copies and realises the arguments and the result both ways (no identity, no leaked mutation)', async () => {
      const { proxy, shared } = await start(async);
      const p = Object.assign(new Point(), { x: 1, y: 2, at: new Date(5) });
      const moved = await proxy.move(p, 10);
      expect(p).toEqual(Object.assign(new Point(), { x: 1, y: 2, at: new Date(5) }));
      const got = shared.got?.[0] as Point;
      expect(got).toBeInstanceOf(Point);
      expect(got).not.toBe(p);
      expect(got.at).toBeInstanceOf(Date);
      expect(moved).toBeInstanceOf(Point);
      expect(moved.at).toBeInstanceOf(Date);
      expect(moved.at.getTime()).toBe(15);
      expect(moved.norm()).toBe(23);
      const stamps = await proxy.stamp(new Date(7));
      expect(stamps.map((d) => [d instanceof Date, d.getTime()])).toEqual([
        [true, 7],
        [true, 8],
      ]);
    });

    it('the result is not the provider\'s object: a later change on either side is not seen by the other', async () => {
      const { proxy, shared } = await start(async);
      const sent = { list: [1, 2], inner: { name: 'ann' } };
      const back = await proxy.keep(sent);
      expect(back).toEqual(sent);
      expect(back).not.toBe(sent);
      expect(back).not.toBe(shared.kept);
      (shared.kept?.['list'] as number[]).push(3);
      (back['inner'] as Record<string, string>)['name'] = 'bo';
      expect(back['list']).toEqual([1, 2]);
      expect(shared.kept?.['inner']).toEqual({ name: 'ann' });
      expect(sent).toEqual({ list: [1, 2], inner: { name: 'ann' } });
    });

    it('a declared business error arrives as its class, copied (never a retry, never an RpcError)', async () => {
      const { proxy } = await start(async);
      const error = await proxy.refuse('closed').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Refused);
      expect(error).not.toBeInstanceOf(RpcError);
      expect((error as Refused).message).toBe('refused: closed');
      expect((error as Refused).reason).toBe('closed');
    });

    it('a result JSON cannot encode rejects with RpcError serialization', async () => {
      const { proxy } = await start(async);
      const error = await proxy.loop().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).code).toBe(RpcErrorCode.SERIALIZATION);
    });
  });
}

describe('injvm copy to a bare provider: the rest of the call stays as it was', () => {
  it('the default timeout still applies to a waiting implementation', async () => {
    const { proxy } = await start(true);
    const error = await proxy.$call('wait', [200], { timeout: 30 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    await expect(proxy.wait(1)).resolves.toBe('waited 1');
  });

  it('with a provider filter installed the full path runs: the filter sees every call, the copy is the same', async () => {
    const { proxy, seen } = await start(true, true);
    const moved = await proxy.move(Object.assign(new Point(), { x: 1, y: 1 }), 1);
    expect(moved).toBeInstanceOf(Point);
    expect(moved.norm()).toBe(4);
    expect(seen).toEqual(['move']);
  });
});
