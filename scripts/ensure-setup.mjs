#!/usr/bin/env node
// Installs dependencies and builds every package — skipping each step when it is already up to date.
//   node scripts/ensure-setup.mjs            install if needed, then build (turbo caches unchanged packages)
//   node scripts/ensure-setup.mjs --no-build install if needed only
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// `npm test` sets this for the processes it starts (e.g. the demo test running `npm run demo`): set-up is done,
// and rebuilding packages under running tests would rewrite files they are reading.
if (process.env.WEFT_SETUP_DONE === '1') process.exit(0);
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };

function run(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) {
    console.error(`\n${cmd} ${args.join(' ')} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status ?? 1);
  }
}

function installFingerprint() {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) {
    if (existsSync(join(root, file))) hash.update(readFileSync(join(root, file)));
  }
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const pkg = join(root, 'packages', dir, 'package.json');
    if (existsSync(pkg)) hash.update(readFileSync(pkg));
  }
  return hash.digest('hex');
}

const stamp = join(root, 'node_modules', '.weft-install-stamp');
const fingerprint = installFingerprint();
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== fingerprint) {
  console.log('[weft] installing dependencies…');
  const hasLock = existsSync(join(root, 'package-lock.json'));
  run('npm', [hasLock ? 'ci' : 'install', '--no-audit', '--no-fund']);
  writeFileSync(stamp, fingerprint);
}
if (!process.argv.includes('--no-build')) {
  run('npx', ['turbo', 'run', 'build', '--output-logs=errors-only']);
}
