// Sessions and the login limit over time: a session idle for 8 hours is gone, one in use stays; failed logins
// are forgotten after a minute; at most 1000 sessions are kept (the least recently used goes first).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { startAdmin, type AdminServer } from '@weft/admin';
import { RecordingLogger } from '@weft/test-utils';

import { AdminClient } from './support/admin-client.ts';

const TOKEN = 'session-test-token';
let dir: string;
let admin: AdminServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-admin-sessions-'));
  admin = await startAdmin({ registry: `embedded://${dir}`, port: 0, token: TOKEN, logger: new RecordingLogger() });
});
afterAll(async () => {
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => vi.useRealTimers());

const HOUR = 60 * 60 * 1000;

describe('session lifetime', () => {
  it('a session idle for more than 8 hours is gone; one used within 8 hours stays', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const idle = new AdminClient(admin.url);
    const busy = new AdminClient(admin.url);
    await idle.login(TOKEN);
    await busy.login(TOKEN);
    vi.setSystemTime(Date.now() + 7 * HOUR);
    expect((await busy.call('GET', '/api/audit')).status).toBe(200);
    vi.setSystemTime(Date.now() + 1.5 * HOUR);
    expect((await idle.call('GET', '/api/audit')).status).toBe(401);
    expect((await idle.call('GET', '/api/session')).body).toEqual({ authenticated: false, csrf: null });
    expect((await busy.call('GET', '/api/audit')).status).toBe(200);
  });

  it('failed logins are forgotten after a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const client = new AdminClient(admin.url);
    for (let i = 0; i < 5; i++) await client.login('wrong-token');
    expect((await client.login(TOKEN)).status).toBe(429);
    vi.setSystemTime(Date.now() + 61_000);
    expect((await client.login(TOKEN)).status).toBe(200);
  });

  it('keeps at most 1000 sessions, dropping the least recently used', async () => {
    const first = new AdminClient(admin.url);
    await first.login(TOKEN);
    const kept = new AdminClient(admin.url);
    await kept.login(TOKEN);
    for (let i = 0; i < 1000; i++) {
      const other = new AdminClient(admin.url);
      await other.login(TOKEN);
      if (i === 500) expect((await kept.call('GET', '/api/audit')).status).toBe(200); // used: moves to the back
    }
    expect((await first.call('GET', '/api/audit')).status).toBe(401);
    expect((await kept.call('GET', '/api/audit')).status).toBe(200);
  });
});
