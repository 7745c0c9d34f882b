// Reconnect backoff and pool availability, without a network: a pool to a closed port.
import { describe, expect, it } from 'vitest';

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
