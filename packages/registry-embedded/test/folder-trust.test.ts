// The registry folder belongs to the user: a folder another user owns or can write is refused, entries another
// user wrote are ignored, and the default location is private.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { RpcError, RpcErrorCode, URL, WeftApplication } from '@weft/core';
import { EmbeddedRegistry } from '@weft/registry-embedded';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

const NOBODY = 65534;

let testApp: TestApp;
let dir: string;
const apps: WeftApplication[] = [];

beforeEach(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/registry-embedded']);
  dir = mkdtempSync(join(tmpdir(), 'weft-embedded-trust-'));
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.shutdown({ timeout: 1000 });
  testApp.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Gives `path` to another user (nobody): directly as root, else through `sudo -n`. */
function giveToNobody(path: string): void {
  if (process.getuid?.() === 0) chownSync(path, NOBODY, NOBODY);
  else execFileSync('sudo', ['-n', 'chown', `${NOBODY}:${NOBODY}`, path]);
}

async function start(registry: string, logger = new RecordingLogger()): Promise<WeftApplication> {
  const app = await WeftApplication.start({ root: testApp.root, name: 'shop', registry, logger });
  apps.push(app);
  return app;
}

async function refusal(registry: string): Promise<RpcError> {
  try {
    await start(registry);
  } catch (error) {
    expect(error).toBeInstanceOf(RpcError);
    return error as RpcError;
  }
  throw new Error(`${registry} was accepted`);
}

describe('the registry folder', () => {
  it('is created 0700 when missing', async () => {
    const folder = join(dir, 'fresh');
    await start(`embedded://${folder}?file-cache=false`);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder, 'dubbo')).mode & 0o777).toBe(0o700);
  });

  it('refuses a world-writable folder, naming it, its mode and the fix', async () => {
    const folder = join(dir, 'open');
    mkdirSync(folder);
    chmodSync(folder, 0o777);
    const error = await refusal(`embedded://${folder}?file-cache=false`);
    expect(error.code).toBe(RpcErrorCode.REGISTRY);
    expect(error.message).toContain(`the registry folder ${folder} is writable by every user (mode 777): another local user could register providers and push override rules.`);
    expect(error.message).toContain('chmod 700');
  });

  it('refuses a group-writable folder', async () => {
    const folder = join(dir, 'group');
    mkdirSync(folder);
    chmodSync(folder, 0o770);
    expect((await refusal(`embedded://${folder}?file-cache=false`)).message).toContain('is writable by its group (mode 770)');
  });

  it('refuses a folder another user owns (created first by someone else)', async () => {
    const folder = join(dir, 'theirs');
    mkdirSync(folder, { mode: 0o755 });
    giveToNobody(folder);
    const error = await refusal(`embedded://${folder}?file-cache=false`);
    expect(error.message).toContain(`the registry folder ${folder} is owned by uid ${NOBODY}, not by this process's user (uid ${process.getuid?.()})`);
  });
});

describe('entries', () => {
  it("ignores a provider entry another user wrote (an impostor), warns once, and keeps the user's own", async () => {
    const logger = new RecordingLogger();
    const real = new EmbeddedRegistry(URL.parse(`embedded://${dir}?poll.interval=30&file-cache=false`), logger, dir);
    await real.register(URL.parse('tri://10.0.0.1:50051/org.acme.Greeter?interface=org.acme.Greeter&side=provider&dynamic=false'));
    const folder = join(dir, 'dubbo', 'org.acme.Greeter', 'providers');
    const impostor = join(folder, 'impostor.json');
    writeFileSync(impostor, JSON.stringify({ url: 'tri://6.6.6.6:50051/org.acme.Greeter?interface=org.acme.Greeter&side=provider' }));
    giveToNobody(impostor);
    expect(readdirSync(folder)).toHaveLength(2);

    const seen: string[][] = [];
    await real.subscribe(URL.parse('consumer://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&category=providers'), (_category, urls) => {
      seen.push(urls.map((u) => u.host));
    });
    await new Promise((resolve) => setTimeout(resolve, 150)); // several polls
    expect(seen.at(-1)).toEqual(['10.0.0.1']);
    const warnings = logger.of('warn').filter((line) => line.includes('impostor.json'));
    expect(warnings).toEqual([`ignoring registry entry ${impostor}: it was written by uid ${NOBODY}, not by this process's user (uid ${process.getuid?.()}).`]);
    await real.destroy();
  });
});

describe('the default location', () => {
  it('is $XDG_RUNTIME_DIR/weft-registry when that folder is private to the user, else ~/.weft/registry', async () => {
    const runtime = join(dir, 'run-user');
    mkdirSync(runtime, { mode: 0o700 });
    const saved = process.env.XDG_RUNTIME_DIR;
    process.env.XDG_RUNTIME_DIR = runtime;
    try {
      const app = await start('embedded://?file-cache=false');
      expect((app.registry as EmbeddedRegistry).directory).toBe(join(runtime, 'weft-registry', 'dubbo'));
      expect(statSync(join(runtime, 'weft-registry')).mode & 0o777).toBe(0o700);
      await app.shutdown();
      chmodSync(runtime, 0o755); // not private: not used
      const other = await start('embedded://?file-cache=false');
      expect((other.registry as EmbeddedRegistry).directory).not.toContain(runtime);
      expect((other.registry as EmbeddedRegistry).directory.endsWith(join('weft-registry', 'dubbo')) || (other.registry as EmbeddedRegistry).directory.endsWith(join('.weft', 'registry', 'dubbo'))).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = saved;
    }
  });
});
