import { chmodSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { AuthKeys, KeysFile, NonceCache, readKeysFile } from '@weft/filter-auth';

const dirs: string[] = [];
const files: KeysFile[] = [];
afterEach(() => {
  for (const file of files.splice(0)) file.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function keysPath(content: string, mode = 0o600): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-auth-keys-'));
  dirs.push(dir);
  const path = join(dir, 'keys.json');
  writeFileSync(path, content, { mode });
  chmodSync(path, mode);
  return path;
}

describe('NonceCache', () => {
  it('remembers a nonce until its timestamp leaves the window', () => {
    const cache = new NonceCache(1000, 10);
    expect(cache.remember('a', 5000, 5000)).toBe('new');
    expect(cache.remember('a', 5000, 5500)).toBe('replayed');
    expect(cache.remember('a', 5000, 6000)).toBe('replayed'); // still acceptable at t + window
    expect(cache.remember('a', 5000, 6001)).toBe('new'); // (the timestamp check refuses it by then)
  });

  it('a future timestamp is kept until its own expiry', () => {
    const cache = new NonceCache(1000, 10);
    expect(cache.remember('f', 5900, 5000)).toBe('new');
    expect(cache.remember('f', 5900, 6800)).toBe('replayed');
  });

  it('is bounded: full of unexpired nonces it refuses, then admits again once some expire', () => {
    const cache = new NonceCache(1000, 3);
    for (const n of ['a', 'b', 'c']) expect(cache.remember(n, 0, 0)).toBe('new');
    expect(cache.remember('d', 0, 10)).toBe('full');
    expect(cache.remember('e', 0, 500)).toBe('full');
    expect(cache.size).toBe(3);
    expect(cache.remember('d', 600, 1001)).toBe('new');
    expect(cache.size).toBe(1); // the expired ones were dropped
  });

  it('drops expired entries as it goes, so a steady flow stays small', () => {
    const cache = new NonceCache(100, 1000);
    for (let t = 0; t < 10_000; t += 10) expect(cache.remember(`n${t}`, t, t)).toBe('new');
    expect(cache.size).toBeLessThanOrEqual(12);
  });
});

describe('AuthKeys', () => {
  it('holds secrets by key id and never shows them', () => {
    const keys = new AuthKeys({ shop: 's3cret' });
    keys.set('ops', Buffer.from('ops-secret'));
    expect(keys.secretOf('shop')).toEqual(Buffer.from('s3cret'));
    expect(keys.keyIds()).toEqual(['shop', 'ops']);
    expect(String(keys)).toBe('AuthKeys(shop, ops)');
    expect(JSON.stringify(keys)).toBe('{"keyIds":["shop","ops"]}');
    expect(keys.delete('shop')).toBe(true);
    expect(keys.has('shop')).toBe(false);
    expect(() => keys.set('x', '')).toThrow('the secret of key id "x" is empty');
  });
});

describe('key file', () => {
  it('reads a JSON object of key id → secret', () => {
    const keys = readKeysFile(keysPath('{"shop":"s3cret","ops":"o"}'));
    expect([...keys.keys()]).toEqual(['shop', 'ops']);
    expect(keys.get('shop')).toEqual(Buffer.from('s3cret'));
  });

  it('refuses group- or world-accessible files, naming the mode', () => {
    for (const mode of [0o644, 0o640, 0o604, 0o660]) {
      const path = keysPath('{"shop":"s3cret"}', mode);
      expect(() => readKeysFile(path)).toThrow(`auth.keys-file ${path} has mode 0${mode.toString(8)}: its group or other users may access it`);
    }
    expect(() => readKeysFile(keysPath('{"shop":"s3cret"}', 0o400))).not.toThrow();
  });

  it('refuses what is not an object of non-empty strings, without quoting the text', () => {
    expect(() => readKeysFile(keysPath('{"shop": s3cret}'))).toThrow(/is not valid JSON/);
    expect(() => readKeysFile(keysPath('{"shop": s3cret}'))).not.toThrow(/s3cret/);
    expect(() => readKeysFile(keysPath('["s3cret"]'))).toThrow('must hold a JSON object {"keyId": "secret", …}, not an array');
    expect(() => readKeysFile(keysPath('{"shop": 5}'))).toThrow('the secret of key id "shop" must be a non-empty string');
  });

  it('re-reads the file when it changes, fails closed while it is unusable, and recovers', async () => {
    const path = keysPath('{"shop":"one"}');
    const changes: (string | undefined)[] = [];
    const file = new KeysFile(path, { interval: 60_000, onChange: (problem) => changes.push(problem) });
    files.push(file);
    expect(file.lookup('shop')).toEqual(Buffer.from('one'));

    const next = `${path}.new`;
    writeFileSync(next, '{"shop":"two","ops":"o"}', { mode: 0o600 });
    renameSync(next, path);
    await file.poll();
    expect(file.lookup('shop')).toEqual(Buffer.from('two'));
    expect(file.lookup('ops')).toEqual(Buffer.from('o'));

    chmodSync(path, 0o644);
    await file.poll();
    expect(file.lookup('shop')).toBeUndefined();
    expect(file.problem).toContain('has mode 0644');

    chmodSync(path, 0o600);
    await file.poll();
    expect(file.lookup('shop')).toEqual(Buffer.from('two'));

    rmSync(path);
    await file.poll();
    expect(file.problem).toContain('cannot be read (ENOENT)');
    await file.poll(); // unchanged: reported once
    expect(changes).toEqual([undefined, changes[1], undefined, changes[3]]);
    expect(changes[1]).toContain('mode 0644');
    expect(changes).toHaveLength(4);
  });

  it('starts unusable when the file is bad at first, and says why', () => {
    const file = new KeysFile('/nonexistent/weft/keys.json', { interval: 60_000 });
    files.push(file);
    expect(file.lookup('shop')).toBeUndefined();
    expect(file.problem).toBe('auth.keys-file /nonexistent/weft/keys.json cannot be read (ENOENT)');
  });
});
