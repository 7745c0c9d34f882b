#!/usr/bin/env node
// `npm test`: set up what is needed, run every package's vitest project once, and end with the line
// `N passed, N failed` (CI reads that line, not vitest's own summary).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };

const setup = spawnSync(process.execPath, [join(root, 'scripts', 'ensure-setup.mjs')], { cwd: root, stdio: 'inherit', env });
if (setup.status !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(setup.status ?? 1);
}

// The ZooKeeper integration tests start their own server from Debian's `zookeeper` package: install it if missing.
if (!existsSync('/usr/share/java/zookeeper.jar')) {
  const zk = spawnSync('bash', [join(root, 'scripts', 'install-zookeeper.sh')], { cwd: root, stdio: 'inherit', env });
  if (zk.status !== 0) console.error('[weft] could not install ZooKeeper: its integration tests will fail.');
}

// @weft/tps-limiter-redis's tests start their own redis-server from Debian's `redis-server` package: install it if missing.
if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status !== 0) {
  const redis = spawnSync('bash', [join(root, 'scripts', 'install-redis.sh')], { cwd: root, stdio: 'inherit', env });
  if (redis.status !== 0) console.error('[weft] could not install redis-server: the Redis limiter tests will fail.');
}

// tri's interop tests run Python's grpcio (gRPC's C core) as a client and a server: install it if missing.
if (['python3', '/usr/bin/python3'].every((py) => spawnSync(py, ['-c', 'import grpc'], { stdio: 'ignore' }).status !== 0)) {
  const grpcio = spawnSync('bash', [join(root, 'scripts', 'install-grpcio.sh')], { cwd: root, stdio: 'inherit', env });
  if (grpcio.status !== 0) console.error('[weft] could not install python3-grpcio: its interop tests will fail.');
}

// @weft/serialization-hessian2's oracle tests compile hessian-lite (../shared/oracles) and read with Debian's
// libhessian-java (Caucho 4.0.38): install a JDK and that jar if missing.
if (spawnSync('javac', ['-version'], { stdio: 'ignore' }).status !== 0 || !existsSync('/usr/share/java/hessian.jar')) {
  const javaSetup = spawnSync('bash', [join(root, 'scripts', 'install-java.sh')], { cwd: root, stdio: 'inherit', env });
  if (javaSetup.status !== 0) console.error('[weft] could not install default-jdk-headless and libhessian-java: the Hessian oracle tests will fail.');
}

// The TLS tests of tri and dubbo generate throwaway certificates with Debian's `openssl`: install it if missing.
if (spawnSync('openssl', ['version'], { stdio: 'ignore' }).status !== 0) {
  const openssl = spawnSync('bash', [join(root, 'scripts', 'install-openssl.sh')], { cwd: root, stdio: 'inherit', env });
  if (openssl.status !== 0) console.error('[weft] could not install openssl: the TLS tests will fail.');
}

// The docs-site and admin console browser tests drive Debian's `chromium` headless (playwright-core never downloads a browser): install it if missing.
if (!existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) {
  const browser = spawnSync('bash', [join(root, 'scripts', 'install-chromium.sh')], { cwd: root, stdio: 'inherit', env });
  if (browser.status !== 0) console.error('[weft] could not install Chromium: the browser tests (docs site, admin console) will fail.');
}

const outDir = join(root, '.weft-tmp');
mkdirSync(outDir, { recursive: true });
const report = join(outDir, 'vitest-report.json');
rmSync(report, { force: true });
const args = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
const result = spawnSync('npx', args, { cwd: root, stdio: 'inherit', env: { ...env, WEFT_SETUP_DONE: '1' } });

let passed = 0;
let failed = 0;
if (existsSync(report)) {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed = json.numPassedTests ?? 0;
  failed = (json.numFailedTests ?? 0) + (json.numRuntimeErrorTestSuites ?? 0);
  if (json.numTodoTests || json.numPendingTests) {
    console.error(`[weft] ${json.numPendingTests} skipped and ${json.numTodoTests} todo tests: the suite allows neither.`);
    failed += (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
  }
} else {
  failed = 1;
}
if (result.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
