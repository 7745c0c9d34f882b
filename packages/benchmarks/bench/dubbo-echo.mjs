// dubbo:// echo, 64 calls in flight, against one Weft provider (its own process, default configuration, async
// implementation, exported on dubbo and tri): Weft's dubbo consumer vs apache-dubbo-js's client (hessian.js) on the
// same provider, and vs Weft's own tri consumer — calls/s as ratios (issue 14, goal ≥ 2× apache-dubbo-js). Each
// client runs in a fresh process of its own (dubbo-weft-echo.mjs, dubbo-js-echo.cjs), so all three are measured alike.
// Rounds alternate the three clients; each figure is the median of the rounds, shown with the best round (on a
// shared machine the best round is the one least disturbed by other load).
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { createTestApp, freePort } from '@weft/test-utils';

const here = (file) => fileURLToPath(new globalThis.URL(file, import.meta.url));
const quick = process.env.WEFT_BENCH_QUICK === '1';
const CALLS = quick ? 20_000 : 100_000;
const ROUNDS = quick ? 3 : 5;
const IN_FLIGHT = 64;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function weftClient(root, protocol, port, total) {
  const run = spawnSync(process.execPath, [here('./dubbo-weft-echo.mjs'), root, protocol, String(port), String(total)], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`dubbo-weft-echo.mjs ${protocol} failed (${run.signal ?? `exit ${run.status}`}): ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)).callsPerSecond;
}

function dubboJs(port, total) {
  const run = spawnSync(process.execPath, [here('./dubbo-js-echo.cjs'), String(port), String(total)], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`dubbo-js-echo.cjs failed (${run.signal ?? `exit ${run.status}`}): ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)).callsPerSecond;
}

/** Runs the bench and appends its figure. */
export async function benchDubboEcho(figures) {
  const testApp = createTestApp(
    ['@weft/core', '@weft/cluster', '@weft/protocol-dubbo', '@weft/protocol-triple', '@weft/serialization-hessian2', '@weft/filter-echo', '@weft/filter-context', '@weft/filter-exception', '@weft/filter-timeout'],
    { prefix: 'weft-bench-dubbo' },
  );
  const dubboPort = await freePort();
  const triPort = await freePort();
  const provider = spawn(process.execPath, [here('./dubbo-echo-provider.mjs'), testApp.root, String(dubboPort), String(triPort)], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await new Promise((resolve, reject) => {
      provider.stdout.on('data', (chunk) => chunk.toString().includes('ready') && resolve());
      provider.once('exit', (code) => reject(new Error(`the echo provider exited (${code})`)));
    });
    const samples = { weft: [], dubboJs: [], tri: [] };
    for (let round = 0; round < ROUNDS; round++) {
      samples.weft.push(weftClient(testApp.root, 'dubbo', dubboPort, CALLS));
      samples.dubboJs.push(dubboJs(dubboPort, CALLS));
      samples.tri.push(weftClient(testApp.root, 'tri', triPort, CALLS));
    }
    const weft = median(samples.weft);
    const js = median(samples.dubboJs);
    const triRate = median(samples.tri);
    const best = (values) => Math.max(...values);
    const fmt = (n) => `${Math.round(n).toLocaleString('en-US')} calls/s`;
    console.log(`\ndubbo:// echo, ${IN_FLIGHT} in flight, one Weft provider (own process, default configuration), median of ${ROUNDS} rounds × ${CALLS} calls`);
    console.log(`  Weft dubbo consumer          ${fmt(weft).padStart(18)}   (rounds: ${samples.weft.map((v) => Math.round(v)).join(', ')})`);
    console.log(`  apache-dubbo-js (hessian.js) ${fmt(js).padStart(18)}   (rounds: ${samples.dubboJs.map((v) => Math.round(v)).join(', ')})`);
    console.log(`  Weft tri consumer (json)     ${fmt(triRate).padStart(18)}   (rounds: ${samples.tri.map((v) => Math.round(v)).join(', ')})`);
    figures.push(
      `dubbo:// echo, 64 in flight: Weft ${fmt(weft)} = ${(weft / js).toFixed(2)}× apache-dubbo-js (goal ≥ 2×; best rounds ${(best(samples.weft) / best(samples.dubboJs)).toFixed(2)}×), ` +
        `${(weft / triRate).toFixed(2)}× Weft's tri on the same provider (best rounds ${(best(samples.weft) / best(samples.tri)).toFixed(2)}×)`,
    );
  } finally {
    provider.stdin.end();
    await new Promise((resolve) => {
      const timer = setTimeout(() => {
        provider.kill('SIGKILL');
        resolve();
      }, 3000);
      provider.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    testApp.cleanup();
  }
}

// Run alone: node packages/benchmarks/bench/dubbo-echo.mjs
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = [];
  await benchDubboEcho(figures);
  for (const f of figures) console.log(f);
}
