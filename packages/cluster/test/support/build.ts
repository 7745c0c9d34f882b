// Vitest global setup: the tests load this package the way an application does — by name, from dist/, through
// its manifests — so dist/ must match src/. An incremental tsc build is a no-op when nothing changed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

export default function setup(): void {
  const result = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: packageDir, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building @weft/cluster failed:\n${result.stdout}\n${result.stderr}`);
}
