// Vitest global setup: installs every fixture application under test/fixtures/apps with npm, for real
// (`--install-links` copies packages as a registry install would), skipping apps already up to date.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules') continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) hashTree(hash, full);
    else hash.update(full).update(readFileSync(full));
  }
}

export default function setup(): void {
  const pkgsHash = createHash('sha256');
  hashTree(pkgsHash, join(fixtures, 'pkgs'));
  const pkgsDigest = pkgsHash.digest('hex');
  for (const app of readdirSync(join(fixtures, 'apps')).sort()) {
    const dir = join(fixtures, 'apps', app);
    if (!existsSync(join(dir, 'package.json'))) continue;
    const digest = createHash('sha256').update(pkgsDigest).update(readFileSync(join(dir, 'package.json'))).digest('hex');
    const stamp = join(dir, 'node_modules', '.fixture-stamp');
    if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) continue;
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    const result = spawnSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--legacy-peer-deps', '--prefer-offline', '--no-package-lock', '--install-links'],
      { cwd: dir, encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`npm install in fixture app ${app} failed:\n${result.stdout}\n${result.stderr}`);
    writeFileSync(stamp, digest);
  }
}
