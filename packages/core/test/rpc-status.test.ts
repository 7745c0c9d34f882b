import { describe, expect, it } from 'vitest';

import { RpcStatus, RpcStatusRegistry, URL } from '@weft/core';

const BASE = 'tri://10.0.0.1:50051/org.acme.Greeter?interface=org.acme.Greeter';

function url(query = ''): URL {
  return URL.parse(query === '' ? BASE : `${BASE}&${query}`);
}

describe('RpcStatusRegistry: begin/end counting', () => {
  it('counts active calls per method and per provider', () => {
    const registry = new RpcStatusRegistry();
    const u = url();
    expect(registry.beginCount(u, 'sayHello')).toBe(true);
    expect(registry.beginCount(u, 'sayHello')).toBe(true);
    expect(registry.beginCount(u, 'sayBye')).toBe(true);
    expect(registry.getMethodStatus(u, 'sayHello').active).toBe(2);
    expect(registry.getMethodStatus(u, 'sayBye').active).toBe(1);
    expect(registry.getStatus(u).active).toBe(3);

    registry.endCount(u, 'sayHello', 10, true);
    expect(registry.getMethodStatus(u, 'sayHello')).toMatchObject({ active: 1, total: 1, failed: 0 });
    expect(registry.getStatus(u)).toMatchObject({ active: 2, total: 1, failed: 0 });
    registry.endCount(u, 'sayHello', 30, false);
    registry.endCount(u, 'sayBye', 5, true);
    expect(registry.getMethodStatus(u, 'sayHello')).toMatchObject({ active: 0, total: 2, failed: 1, succeeded: 1 });
    expect(registry.getMethodStatus(u, 'sayBye')).toMatchObject({ active: 0, total: 1, failed: 0, succeeded: 1 });
    expect(registry.getStatus(u)).toMatchObject({ active: 0, total: 3, failed: 1, succeeded: 2 });
  });

  it('admits up to max calls in flight, then refuses without counting anything', () => {
    const registry = new RpcStatusRegistry();
    const u = url();
    expect(registry.beginCount(u, 'm', 2)).toBe(true);
    expect(registry.beginCount(u, 'm', 2)).toBe(true);
    expect(registry.beginCount(u, 'm', 2)).toBe(false);
    expect(registry.beginCount(u, 'm', 2)).toBe(false);
    expect(registry.getMethodStatus(u, 'm')).toMatchObject({ active: 2, total: 0 });
    expect(registry.getStatus(u)).toMatchObject({ active: 2, total: 0 });
    // The limit is per method: another method is admitted.
    expect(registry.beginCount(u, 'other', 2)).toBe(true);
    expect(registry.getStatus(u).active).toBe(3);
    // Once a call ends, a slot is free again.
    registry.endCount(u, 'm', 1, true);
    expect(registry.beginCount(u, 'm', 2)).toBe(true);
    expect(registry.getMethodStatus(u, 'm').active).toBe(2);
  });

  it('max <= 0 means unlimited', () => {
    const registry = new RpcStatusRegistry();
    const u = url();
    for (let i = 0; i < 100; i++) expect(registry.beginCount(u, 'm', 0)).toBe(true);
    for (let i = 0; i < 5; i++) expect(registry.beginCount(u, 'm', -1)).toBe(true);
    for (let i = 0; i < 5; i++) expect(registry.beginCount(u, 'm')).toBe(true);
    expect(registry.getMethodStatus(u, 'm').active).toBe(110);
  });

  it('max of 1 admits exactly one call', () => {
    const registry = new RpcStatusRegistry();
    const u = url();
    expect(registry.beginCount(u, 'm', 1)).toBe(true);
    expect(registry.beginCount(u, 'm', 1)).toBe(false);
    registry.endCount(u, 'm', 3, false);
    expect(registry.beginCount(u, 'm', 1)).toBe(true);
  });
});

describe('RpcStatus: elapsed statistics', () => {
  it('averages, maxima and failure statistics', () => {
    const registry = new RpcStatusRegistry();
    const u = url();
    const elapsed: [number, boolean][] = [
      [10, true],
      [30, true],
      [100, false],
      [20, true],
      [60, false],
    ];
    for (const [ms, ok] of elapsed) {
      registry.beginCount(u, 'm');
      registry.endCount(u, 'm', ms, ok);
    }
    for (const status of [registry.getMethodStatus(u, 'm'), registry.getStatus(u)]) {
      expect(status.total).toBe(5);
      expect(status.failed).toBe(2);
      expect(status.succeeded).toBe(3);
      expect(status.totalElapsed).toBe(220);
      expect(status.failedElapsed).toBe(160);
      expect(status.getAverageElapsed()).toBe(44);
      expect(status.getSucceededAverageElapsed()).toBe(20);
      expect(status.maxElapsed).toBe(100);
      expect(status.failedMaxElapsed).toBe(100);
      expect(status.succeededMaxElapsed).toBe(30);
    }
  });

  it('averages are 0 (not NaN) before any call completes', () => {
    const status = new RpcStatus();
    expect(status.getAverageElapsed()).toBe(0);
    expect(status.getSucceededAverageElapsed()).toBe(0);
    expect(status.getWindowSucceededAverageElapsed(30_000)).toBe(0);
    const failedOnly = new RpcStatusRegistry();
    failedOnly.beginCount(url(), 'm');
    failedOnly.endCount(url(), 'm', 40, false);
    expect(failedOnly.getMethodStatus(url(), 'm').getSucceededAverageElapsed()).toBe(0);
    expect(failedOnly.getMethodStatus(url(), 'm').getAverageElapsed()).toBe(40);
  });

  it('window average counts only successes of the current window and restarts after the slide period', () => {
    const registry = new RpcStatusRegistry();
    const u = url();
    const status = registry.getMethodStatus(u, 'm');
    const start = status.windowStart;
    for (const [ms, ok] of [
      [10, true],
      [30, true],
      [500, false],
    ] as const) {
      registry.beginCount(u, 'm');
      registry.endCount(u, 'm', ms, ok);
    }
    // Failures do not count in the window.
    expect(status.getWindowSucceededAverageElapsed(1000, start + 999)).toBe(20);
    expect(status.windowSucceeded).toBe(2);
    // The window is older than the slide period: it restarts, empty.
    expect(status.getWindowSucceededAverageElapsed(1000, start + 1000)).toBe(0);
    expect(status.windowStart).toBe(start + 1000);
    expect(status.windowSucceeded).toBe(0);
    // New successes fill the new window; the overall statistics are unaffected by the slide.
    registry.beginCount(u, 'm');
    registry.endCount(u, 'm', 70, true);
    expect(status.getWindowSucceededAverageElapsed(1000, start + 1500)).toBe(70);
    expect(status.getSucceededAverageElapsed()).toBeCloseTo(110 / 3);
    expect(status.total).toBe(4);
  });
});

describe('RpcStatusRegistry: keys and lifecycle', () => {
  it('keys by identity and service key: group and version variants at one address are separate (Dubbo flaw fixed)', () => {
    const registry = new RpcStatusRegistry();
    const v1 = url('version=1.0.0');
    const v2 = url('version=2.0.0');
    const groupA = url('group=a&version=1.0.0');
    // Dubbo keys by toIdentityString() alone, which is the same for all three.
    expect(v1.toIdentityString()).toBe(v2.toIdentityString());
    expect(v1.toIdentityString()).toBe(groupA.toIdentityString());
    expect(RpcStatusRegistry.keyOf(v1)).not.toBe(RpcStatusRegistry.keyOf(v2));
    expect(RpcStatusRegistry.keyOf(v1)).not.toBe(RpcStatusRegistry.keyOf(groupA));

    expect(registry.beginCount(v1, 'm', 1)).toBe(true);
    expect(registry.beginCount(v2, 'm', 1)).toBe(true);
    expect(registry.beginCount(groupA, 'm', 1)).toBe(true);
    expect(registry.beginCount(v1, 'm', 1)).toBe(false);
    expect(registry.getStatus(v1).active).toBe(1);
    expect(registry.getStatus(v2).active).toBe(1);
    expect(registry.getStatus(groupA).active).toBe(1);
    expect(registry.size).toBe(3);
  });

  it('key is the identity string plus the service key and the side', () => {
    expect(RpcStatusRegistry.keyOf(url('group=g&version=1'))).toBe('tri://10.0.0.1:50051/org.acme.Greeter|g/org.acme.Greeter:1|');
    expect(RpcStatusRegistry.keyOf(url('side=consumer'))).toBe('tri://10.0.0.1:50051/org.acme.Greeter|org.acme.Greeter|consumer');
    expect(RpcStatusRegistry.keyOf(URL.parse('tri://10.0.0.1:50051'))).toBe('tri://10.0.0.1:50051||');
  });

  it('keeps consumer-side and provider-side counters of one provider apart (an app calling its own service)', () => {
    const registry = new RpcStatusRegistry();
    const consumer = url('side=consumer');
    const provider = url('side=provider');
    expect(registry.beginCount(consumer, 'sayHello', 1)).toBe(true);
    expect(registry.beginCount(provider, 'sayHello', 1)).toBe(true);
    expect(registry.getMethodStatus(consumer, 'sayHello').active).toBe(1);
    expect(registry.getMethodStatus(provider, 'sayHello').active).toBe(1);
  });

  it('counts undeclared method names under one shared entry, so callers cannot grow memory', () => {
    const registry = new RpcStatusRegistry();
    const declared = url('methods=sayHello,count');
    for (let i = 0; i < 1000; i++) {
      registry.beginCount(declared, `made-up-${i}`);
      registry.endCount(declared, `made-up-${i}`, 1, false);
    }
    expect(registry.getMethodStatus(declared, 'made-up-7')).toBe(registry.getMethodStatus(declared, 'another'));
    expect(registry.getMethodStatus(declared, 'made-up-7').total).toBe(1000);
    expect(registry.getMethodStatus(declared, 'sayHello')).not.toBe(registry.getMethodStatus(declared, 'count'));
  });

  it('separate addresses of one service are separate entries', () => {
    const registry = new RpcStatusRegistry();
    const a = URL.parse('tri://10.0.0.1:50051/org.acme.Greeter');
    const b = URL.parse('tri://10.0.0.2:50051/org.acme.Greeter');
    registry.beginCount(a, 'm');
    expect(registry.getStatus(b).active).toBe(0);
    expect(registry.size).toBe(2);
  });

  it('distinct URL objects with the same content share one entry', () => {
    const registry = new RpcStatusRegistry();
    const first = url('version=1');
    const second = url('version=1');
    expect(first).not.toBe(second);
    registry.beginCount(first, 'm');
    registry.beginCount(second, 'm');
    expect(registry.getMethodStatus(first, 'm')).toBe(registry.getMethodStatus(second, 'm'));
    expect(registry.getStatus(second)).toBe(registry.getStatus(first));
    expect(registry.getStatus(first).active).toBe(2);
    registry.endCount(second, 'm', 5, true);
    expect(registry.getMethodStatus(first, 'm')).toMatchObject({ active: 1, total: 1 });
    expect(registry.size).toBe(1);
  });

  it('parameters outside the service key do not split an entry', () => {
    const registry = new RpcStatusRegistry();
    registry.beginCount(url('version=1&timestamp=1'), 'm');
    registry.beginCount(url('timestamp=2&version=1&weight=5'), 'm');
    expect(registry.size).toBe(1);
    expect(registry.getStatus(url('version=1')).active).toBe(2);
  });

  it('remove(url) frees the entry, also for other URL objects of the same key', () => {
    const registry = new RpcStatusRegistry();
    const u = url('version=1');
    const other = url('version=2');
    registry.beginCount(u, 'm');
    registry.endCount(u, 'm', 7, true);
    registry.beginCount(other, 'm');
    expect(registry.size).toBe(2);

    registry.remove(url('version=1'));
    expect(registry.size).toBe(1);
    // The removed provider starts from zero when seen again; the other one is untouched.
    expect(registry.getStatus(u)).toMatchObject({ active: 0, total: 0 });
    expect(registry.getMethodStatus(u, 'm')).toMatchObject({ active: 0, total: 0 });
    expect(registry.getStatus(other).active).toBe(1);
    expect(registry.size).toBe(2);
    registry.remove(u);
    registry.remove(other);
    expect(registry.size).toBe(0);
  });

  it('remove of an unknown URL is harmless', () => {
    const registry = new RpcStatusRegistry();
    registry.beginCount(url(), 'm');
    registry.remove(URL.parse('tri://10.9.9.9:1/x'));
    expect(registry.size).toBe(1);
    expect(registry.getStatus(url()).active).toBe(1);
  });

  it('a call ending after its provider was removed does not resurrect the entry', () => {
    const registry = new RpcStatusRegistry();
    const u = url();
    expect(registry.beginCount(u, 'm')).toBe(true);
    registry.remove(u);
    expect(registry.size).toBe(0);
    // The call that was in flight when the invoker was destroyed completes now.
    registry.endCount(u, 'm', 12, true);
    expect(registry.size).toBe(0);
    // Nor does it leave a negative active count behind for the next provider at that key.
    expect(registry.getStatus(u)).toMatchObject({ active: 0, total: 0 });
    expect(registry.getMethodStatus(u, 'm')).toMatchObject({ active: 0, total: 0 });
  });

  it('registries share nothing', () => {
    const a = new RpcStatusRegistry();
    const b = new RpcStatusRegistry();
    a.beginCount(url(), 'm');
    expect(b.getStatus(url()).active).toBe(0);
    expect(a.size).toBe(1);
    expect(b.size).toBe(1);
  });
});
