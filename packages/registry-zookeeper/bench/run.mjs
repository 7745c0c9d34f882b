// Benchmark of @weft/registry-zookeeper: how long an operator's override takes to reach callers.
// Run: `node packages/registry-zookeeper/bench/run.mjs` (needs built dist/ of core, cluster, mock and this package),
// or `npm run bench` at the repository root (which builds first).
//
//   override → obeyed   time from writing an override node in ZooKeeper (a port-less `override://0.0.0.0/…` with
//                       `sayHello.mock=force:return …`) to the first consumer call that returns the override's
//                       value: ZooKeeper write, watch event, getChildren, decode/parse, directory update, validation.
//   delete → restored   time from deleting that node to the first call that reaches the provider again.
//   floor               one ZooKeeper create + getChildren round trip from a plain client (what any watch-based
//                       notification costs at least); the ratio column divides by it.
// 100 samples each, after 5 unmeasured warm-up rounds. ZooKeeper (Debian's `zookeeper` package) runs on loopback,
// started and stopped by PID by the test harness; without it the bench prints a skip line and exits 0.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import ts from 'typescript';

import { defineService, Protocol, WeftApplication } from '@weft/core';
import { ZookeeperClient } from '@weft/registry-zookeeper';
import { createTestApp, freePort } from '@weft/test-utils';

import { formatNs, printTable, summarize } from '../../core/bench/harness.mjs';
import { LoopProtocol } from '../test/support/loop-protocol.mjs';

const SAMPLES = 100;
const WARMUP = 5;
const packageDir = fileURLToPath(new URL('..', import.meta.url));

// The test harness is TypeScript; transpile it on the fly (types only are stripped) instead of keeping a JS copy.
const scratch = mkdtempSync(join(tmpdir(), 'weft-zk-bench-'));
const harnessSource = readFileSync(join(packageDir, 'test', 'support', 'zookeeper-server.ts'), 'utf8');
const harnessFile = join(scratch, 'zookeeper-server.mjs');
writeFileSync(harnessFile, ts.transpileModule(harnessSource, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText);
const { ZookeeperServer } = await import(pathToFileURL(harnessFile).href);

if (!ZookeeperServer.isInstalled()) {
  console.log('[weft] registry-zookeeper bench skipped: ZooKeeper is not installed (run scripts/install-zookeeper.sh).');
  rmSync(scratch, { recursive: true, force: true });
  process.exit(0);
}

const DEMO = 'com.alibaba.dubbo.demo.DemoService';
const DemoService = defineService(DEMO, { sayHello: { args: [String], returns: String } });
const javaEncode = (s) => encodeURIComponent(s).replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');

// Interrupted: exit, so the harness's exit hook kills the ZooKeeper JVM (by PID).
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const zk = await ZookeeperServer.start();
const cleanups = [];
try {
  const registry = `${zk.url}?timeout=5000&session=30000&file-cache=false`;
  const start = async (name) => {
    const created = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/registry-zookeeper'], { prefix: 'weft-zk-bench', name });
    const app = await WeftApplication.start({ root: created.root, name, registry, logger: silentLogger() });
    app.model.getExtensionLoader(Protocol).addExtension('loop', LoopProtocol);
    cleanups.push(async () => {
      await app.shutdown({ timeout: 1000 });
      created.cleanup();
    });
    return app;
  };
  const provider = await start('demo-provider');
  await provider.export(DemoService, { sayHello: (name) => `hello ${name}` }, { protocol: 'loop', host: '127.0.0.1', port: await freePort() });
  const consumer = await start('demo-consumer');
  const demo = await consumer.refer(DemoService);
  const client = new ZookeeperClient({ connectString: zk.connectString, connectionTimeout: 10_000 });
  cleanups.push(() => client.close());
  await client.waitConnected();
  const configurators = `/dubbo/${DEMO}/configurators`;

  /**
   * Calls until the answer is `expected`; returns the hrtime at that first obeying answer. Yields to the event loop
   * between calls: a force-mocked call completes without I/O, and a loop of them would starve the ZooKeeper socket.
   */
  const until = async (expected) => {
    for (;;) {
      if ((await demo.sayHello('bench')) === expected) return process.hrtime.bigint();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  const obeyed = [];
  const restored = [];
  const floor = [];
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const value = `v${i}`;
    const rule = `override://0.0.0.0/${DEMO}?category=configurators&dynamic=false&application=demo-consumer&sayHello.mock=force:return+%60${value}%60`;
    const node = `${configurators}/${javaEncode(rule)}`;
    const c0 = process.hrtime.bigint();
    await client.create(node);
    const c1 = await until(value);
    const d0 = process.hrtime.bigint();
    await client.delete(node);
    const d1 = await until('hello bench');
    const f0 = process.hrtime.bigint();
    await client.create(`/bench-floor-${i}`);
    await client.getChildren('/');
    const f1 = process.hrtime.bigint();
    await client.delete(`/bench-floor-${i}`);
    if (i >= WARMUP) {
      obeyed.push(Number(c1 - c0));
      restored.push(Number(d1 - d0));
      floor.push(Number(f1 - f0));
    }
  }

  const FLOOR = 'floor: ZooKeeper create + getChildren';
  const rows = [summarize(FLOOR, floor), summarize('override written → first obeying call', obeyed), summarize('override deleted → first call to the provider', restored)];
  console.log(`\n@weft/registry-zookeeper — override propagation (${SAMPLES} samples each; ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length}, Node ${process.version})`);
  printTable('override propagation through ZooKeeper', rows, { baseline: FLOOR });
  const [floorRow, obeyedRow, restoredRow] = rows;
  const figures = [
    ['override → obeyed (median)', `${formatNs(obeyedRow.nsPerOp)} (${(obeyedRow.nsPerOp / floorRow.nsPerOp).toFixed(1)}× a ZooKeeper write+read round trip; max ${formatNs(obeyedRow.max)})`],
    ['delete → restored (median)', `${formatNs(restoredRow.nsPerOp)} (${(restoredRow.nsPerOp / floorRow.nsPerOp).toFixed(1)}× the round trip; max ${formatNs(restoredRow.max)})`],
    ['ZooKeeper round trip (median)', formatNs(floorRow.nsPerOp)],
  ];
  console.log('\nFigures:');
  const labelWidth = Math.max(...figures.map(([label]) => label.length));
  for (const [label, value] of figures) console.log(`  ${`${label}:`.padEnd(labelWidth + 1)}  ${value}`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await zk.dispose();
  rmSync(scratch, { recursive: true, force: true });
}

function silentLogger() {
  return { debug() {}, info() {}, warn() {}, error() {} };
}
