#!/usr/bin/env node
// `npm run pack`: builds every package and writes the tarball of each public one (what `npm publish` would
// upload) to packs/, for installing Weft into an application before it is on the npm registry:
//   npm install /path/to/weft/packs/weft-core-0.1.0.tgz …
//   node scripts/pack.mjs --out <dir>   writes them to <dir> instead
//   node scripts/pack.mjs --no-build    packs what dist/ holds now (the tests do this: `npm test` built it)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 && args[outAt + 1] !== undefined ? resolve(args[outAt + 1]) : join(root, 'packs');

if (!args.includes('--no-build')) {
  const setup = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-setup.mjs')], { cwd: root, stdio: 'inherit' });
  if (setup.status !== 0) process.exit(setup.status ?? 1);
}

const workspaces = [];
for (const dir of readdirSync(join(root, 'packages')).sort()) {
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
  } catch {
    continue;
  }
  if (pkg.private !== true) workspaces.push('-w', `packages/${dir}`);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// One npm process packs them all; dist/ is already built, so no lifecycle script needs to run.
const pack = spawnSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', out, ...workspaces], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, npm_config_update_notifier: 'false' },
});
if (pack.status !== 0) {
  console.error(`npm pack failed (exit ${pack.status ?? pack.signal}):\n${pack.stdout}\n${pack.stderr}`);
  process.exit(pack.status ?? 1);
}
const tarballs = readdirSync(out).filter((f) => f.endsWith('.tgz')).sort();
console.log(`[weft] ${tarballs.length} tarballs in ${out}:\n${tarballs.map((t) => `  ${t}\n`).join('')}`);
