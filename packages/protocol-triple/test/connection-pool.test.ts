// Reconnect backoff and pool availability: a pool to a closed port, and to a bare node:http2 server that ends its
// sessions in each of the ways a provider does (graceful GOAWAY, GOAWAY with an error, a lost connection).
import http2 from 'node:http2';
import { once } from 'node:events';

import { afterEach, describe, expect, it } from 'vitest';

import { backoffDelay, TripleConnectionPool } from '@weft/protocol-triple';
import { freePort, RecordingLogger } from '@weft/test-utils';

describe('backoffDelay', () => {
  it('grows by 1.6 per attempt with ±20 % jitter, capped at the maximum', () => {
    expect(backoffDelay(0, 100, 10_000, () => 0.5)).toBe(100);
    expect(backoffDelay(0, 100, 10_000, () => 0)).toBe(80);
    expect(backoffDelay(0, 100, 10_000, () => 1)).toBe(120);
    expect(backoffDelay(1, 100, 10_000, () => 0.5)).toBe(160);
    expect(backoffDelay(5, 100, 10_000, () => 0.5)).toBe(Math.round(100 * 1.6 ** 5));
    expect(backoffDelay(30, 100, 10_000, () => 0.5)).toBe(10_000);
    expect(backoffDelay(30, 100, 10_000, () => 1)).toBe(12_000);
  });
});

describe('TripleConnectionPool', () => {
  it('is available before the first attempt, unavailable while waiting to reconnect, and closes for good', async () => {
    const port = await freePort();
    const logger = new RecordingLogger();
    let closed = 0;
    const pool = new TripleConnectionPool(
      { address: `127.0.0.1:${port}`, connections: 2, connectTimeout: 1000, backoff: 1000, maxBackoff: 1000, heartbeat: 0, maxHeaderListSize: 8192, initialWindowSize: 1 << 20, connectionWindowSize: 4 << 20 },
      logger,
      () => closed++,
    ).retain();
    expect(pool.isAvailable()).toBe(true);
    await pool.ready(2000);
    expect(pool.isAvailable()).toBe(false);
    expect(pool.acquire()).toBeUndefined();
    expect(pool.describeUnavailable()).toMatch(/^not connected \(.*ECONNREFUSED.*\); reconnecting in \d+ ms$/);
    expect(logger.of('debug').some((m) => m.includes(`127.0.0.1:${port}`))).toBe(true);
    pool.retain();
    pool.release();
    expect(closed).toBe(0);
    pool.release();
    expect(closed).toBe(1);
    expect(pool.isAvailable()).toBe(false);
    expect(pool.describeUnavailable()).toBe('the connection pool is closed');
  });
});

describe('TripleConnectionPool: how a session ends decides what comes next', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /**
   * A bare HTTP/2 server that hands each new session to `onSession`; counts HTTP/2 sessions (a client's SETTINGS
   * received: a bare TCP probe is not one).
   */
  async function server(
    onSession: (session: http2.ServerHttp2Session) => void,
  ): Promise<{ port: number; sessions: () => number; stopListening: () => void }> {
    const h2 = http2.createServer();
    let count = 0;
    const open = new Set<http2.ServerHttp2Session>();
    h2.on('session', (session) => {
      session.once('remoteSettings', () => count++);
      open.add(session);
      session.on('close', () => open.delete(session));
      onSession(session);
    });
    h2.listen(0, '127.0.0.1');
    await once(h2, 'listening');
    closers.push(async () => {
      for (const session of open) session.destroy();
      await new Promise<void>((resolve) => h2.close(() => resolve()));
    });
    return { port: (h2.address() as { port: number }).port, sessions: () => count, stopListening: () => h2.close() };
  }

  function pool(port: number): TripleConnectionPool {
    const created = new TripleConnectionPool(
      { address: `127.0.0.1:${port}`, connections: 1, connectTimeout: 1000, backoff: 2000, maxBackoff: 2000, heartbeat: 0, maxHeaderListSize: 8192, initialWindowSize: 1 << 20, connectionWindowSize: 4 << 20 },
      new RecordingLogger(),
      () => undefined,
    ).retain();
    closers.push(async () => created.release());
    return created;
  }

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('a young session closed gracefully (GOAWAY NO_ERROR, as idle-timeout does) goes idle: available, and the next call connects', async () => {
    const peer = await server((session) => setTimeout(() => !session.destroyed && session.goaway(http2.constants.NGHTTP2_NO_ERROR), 50));
    const connections = pool(peer.port);
    await connections.ready(2000);
    await pause(300);
    // No eager reconnect and no backoff: one session so far, and the pool stays available.
    expect(peer.sessions()).toBe(1);
    expect(connections.isAvailable()).toBe(true);
    // A call now gets a session at once (connecting: its request waits for it), and it connects.
    expect(connections.acquire()).toBeDefined();
    await connections.ready(2000);
    // The provider counts the session once the client's SETTINGS reach it, a moment after the client is ready.
    const deadline = Date.now() + 500;
    while (peer.sessions() < 2 && Date.now() < deadline) await pause(10);
    expect(peer.sessions()).toBe(2);
  });

  it('a graceful GOAWAY from a provider that also stopped listening (shutting down) backs off: unavailable meanwhile', async () => {
    const peer = await server((session) =>
      setTimeout(() => {
        peer.stopListening();
        if (!session.destroyed) session.goaway(http2.constants.NGHTTP2_NO_ERROR);
      }, 50),
    );
    const connections = pool(peer.port);
    await connections.ready(2000);
    await pause(300);
    expect(connections.isAvailable()).toBe(false);
    expect(connections.acquire()).toBeUndefined();
    expect(connections.describeUnavailable()).toMatch(/ECONNREFUSED/);
  });

  it('a young session refused with an error (GOAWAY ENHANCE_YOUR_CALM) backs off: unavailable meanwhile', async () => {
    const peer = await server((session) => setTimeout(() => !session.destroyed && session.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM), 50));
    const connections = pool(peer.port);
    await connections.ready(2000);
    await pause(300);
    expect(connections.isAvailable()).toBe(false);
    expect(connections.acquire()).toBeUndefined();
    expect(peer.sessions()).toBe(1);
  });

  it('a session lost after a healthy lifetime is replaced at once, not after a backoff', async () => {
    let first: http2.ServerHttp2Session | undefined;
    const peer = await server((session) => (first ??= session));
    const connections = pool(peer.port);
    await connections.ready(2000);
    await pause(1100);
    first?.destroy();
    // The backoff is 2 s: a second session within half a second is the immediate replacement.
    const deadline = Date.now() + 500;
    while (peer.sessions() < 2 && Date.now() < deadline) await pause(10);
    expect(peer.sessions()).toBe(2);
    expect(connections.isAvailable()).toBe(true);
  });
});
