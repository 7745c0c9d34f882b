#!/usr/bin/env node
// `npm run bench` (after ensure-setup has installed and built everything): runs every package's benchmarks.
//
//   node scripts/bench.mjs              every packages/*/bench/run.mjs, in package-directory order
//   node scripts/bench.mjs core rpc     only those packages (directory names under packages/)
//
// Each bench runs in its own `node --expose-gc` process (cwd: its package directory, stdio inherited) and prints
// its own section; they run one after another so they do not compete for the CPU. Benchmarks print figures,
// they do not assert on them: the exit code is non-zero only when a bench fails to run (crash, bad fixture).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packagesDir = join(root, 'packages');
const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));

const benches = readdirSync(packagesDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && (only.length === 0 || only.includes(d.name)))
  .map((d) => ({ name: d.name, dir: join(packagesDir, d.name), file: join(packagesDir, d.name, 'bench', 'run.mjs') }))
  .filter((b) => existsSync(b.file))
  .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

const unknown = only.filter((name) => !benches.some((b) => b.name === name));
if (unknown.length > 0) {
  console.error(`[weft] no bench/run.mjs in packages/${unknown.join(', packages/')}`);
  process.exit(1);
}
if (benches.length === 0) {
  console.log('[weft] no packages/*/bench/run.mjs found: nothing to benchmark.');
  process.exit(0);
}

const failed = [];
const started = Date.now();
for (const bench of benches) {
  console.log(`\n[weft] bench: packages/${bench.name}/bench/run.mjs`);
  const t0 = Date.now();
  const result = spawnSync(process.execPath, ['--expose-gc', bench.file], { cwd: bench.dir, stdio: 'inherit' });
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  if (result.status === 0) {
    console.log(`[weft] packages/${bench.name}: done in ${seconds} s`);
  } else {
    const why = result.error?.message ?? (result.signal !== null ? `signal ${result.signal}` : `exit ${result.status}`);
    console.error(`[weft] packages/${bench.name}: FAILED (${why}) after ${seconds} s`);
    failed.push(bench.name);
  }
}

const total = ((Date.now() - started) / 1000).toFixed(1);
if (failed.length > 0) {
  console.error(`\n[weft] ${failed.length} of ${benches.length} benches failed: ${failed.join(', ')} (${total} s)`);
  process.exit(1);
}
console.log(`\n[weft] ${benches.length} bench${benches.length === 1 ? '' : 'es'} ran in ${total} s`);
