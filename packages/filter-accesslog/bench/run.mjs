// Benchmarks of @weft/filter-accesslog. Run: `node --expose-gc packages/filter-accesslog/bench/run.mjs`, or
// `npm run bench` at the repository root (which builds first). Needs a built dist/ (`npx tsc -p tsconfig.build.json`).
//
//   (a) per-call cost of an injvm call (proxy → failfast cluster → provider chain → implementation) with the
//       accesslog filter active, writing to a file (text and JSON lines) or to a no-op application logger, vs the
//       same call on a service without accesslog (the baseline): sequential calls, one awaited after another
//   (b) lines per second: end to end (100 000 calls from 100 concurrent callers, until every line is in the file),
//       and the writer alone (200 000 queued lines flushed by app.shutdown())
//
// See ../../core/bench/harness.mjs for how to read the tables. Temporary files go to os.tmpdir() and are removed.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { defineService, Logger, WeftApplication } from '@weft/core';
import { AccessLogStats } from '@weft/filter-accesslog';
import { createTestApp } from '@weft/test-utils';

import { formatRatio, measure, printTable } from '../../core/bench/harness.mjs';

const cleanups = [];
function cleanup() {
  for (const fn of cleanups.splice(0)) fn();
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

class SilentLogger extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
}

const Greeter = defineService('bench.Greeter', { sayHello: { args: [String, Number], returns: String } });
const impl = { sayHello: (name, n) => `hello ${name} ${n}` };

const logDir = realpathSync(mkdtempSync(join(tmpdir(), 'weft-bench-accesslog-')));
cleanups.push(() => rmSync(logDir, { recursive: true, force: true }));

async function startApp(name) {
  const test = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-accesslog'], { prefix: 'weft-bench-accesslog-app' });
  cleanups.push(test.cleanup);
  return WeftApplication.start({ root: test.root, name, logger: new SilentLogger() });
}

/** Exports the Greeter in `group` with `parameters` and returns its proxy. */
async function greeter(app, group, parameters) {
  await app.export(Greeter, impl, { group, parameters });
  return app.refer(Greeter, { group, cluster: 'failfast' });
}

const figures = [];

console.log('\n══ @weft/filter-accesslog ══');
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}` +
    (typeof globalThis.gc === 'function' ? ', --expose-gc' : ' (run with --expose-gc for steadier figures)'),
);

// ---------------------------------------------------------------------------------------------------------------
// (a) per-call cost

{
  const app = await startApp('bench-calls');
  const plain = await greeter(app, 'plain', {});
  const text = await greeter(app, 'text', { accesslog: join(logDir, 'calls.log') });
  const json = await greeter(app, 'json', { accesslog: join(logDir, 'calls.jsonl') });
  const logger = await greeter(app, 'logger', { accesslog: 'true' });
  let n = 0;
  // Warm every path up first (JIT, first file writes), so the first measured row is not the one paying for it.
  for (const proxy of [plain, text, json, logger]) for (let i = 0; i < 20_000; i++) await proxy.sayHello('ann', n++);
  const rows = [
    await measure('injvm call, no accesslog (baseline)', () => plain.sayHello('ann', n++)),
    await measure('injvm call, accesslog=<file> (text)', () => text.sayHello('ann', n++)),
    await measure('injvm call, accesslog=<file>.jsonl (JSON)', () => json.sayHello('ann', n++)),
    await measure('injvm call, accesslog=true (no-op logger)', () => logger.sayHello('ann', n++)),
  ];
  printTable('(a) per-call cost of the accesslog filter (sequential injvm calls)', rows, {
    baseline: 'injvm call, no accesslog (baseline)',
  });
  const [base, withText, withJson, withLogger] = rows;
  figures.push(['call with accesslog to a file (text) vs without', formatRatio(withText.nsPerOp / base.nsPerOp)]);
  figures.push(['call with accesslog to a file (JSON) vs without', formatRatio(withJson.nsPerOp / base.nsPerOp)]);
  figures.push(['call with accesslog=true (logger) vs without', formatRatio(withLogger.nsPerOp / base.nsPerOp)]);
  const stats = app.model.getService(AccessLogStats);
  await app.shutdown();
  const lost = stats.files().reduce((sum, f) => sum + f.unwritable + f.pending, 0);
  if (lost !== 0) throw new Error(`bench (a): ${lost} line(s) not written`);
}

// ---------------------------------------------------------------------------------------------------------------
// (b) lines per second

{
  const CALLERS = 100;
  const CALLS = 100_000;
  const file = join(logDir, 'throughput.log');
  const app = await startApp('bench-throughput');
  const proxy = await greeter(app, 'throughput', { accesslog: file });
  const stats = app.model.getService(AccessLogStats);
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < CALLS) await proxy.sayHello('ann', next++);
    }),
  );
  await app.shutdown(); // flushes the last partial buffer
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const lines = readFileSync(file, 'utf8').split('\n').length - 1;
  if (lines !== CALLS || stats.written !== CALLS) throw new Error(`bench (b): ${lines} lines in the file, ${stats.written} written, expected ${CALLS}`);
  console.log(`\n(b) end to end: ${CALLS} calls from ${CALLERS} concurrent callers, each logged to a file: ${seconds.toFixed(2)} s`);
  figures.push(['calls logged to a file per second (end to end, 100 callers)', `${Math.round(CALLS / seconds).toLocaleString('en-US')}`]);
}

{
  const LINES = 200_000;
  const file = join(logDir, 'writer.log');
  const app = await startApp('bench-writer');
  // A buffer and an interval that never trigger: every line waits in the queue until shutdown writes it.
  const proxy = await greeter(app, 'writer', {
    accesslog: file,
    'accesslog.buffer.size': LINES + 1,
    'accesslog.max.pending': LINES + 1,
    'accesslog.flush.interval': 3_600_000,
  });
  const stats = app.model.getService(AccessLogStats);
  let next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      while (next < LINES) await proxy.sayHello('ann', next++);
    }),
  );
  if (stats.pending !== LINES) throw new Error(`bench (b): expected ${LINES} pending lines, got ${stats.pending}`);
  const t0 = process.hrtime.bigint();
  await app.shutdown();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const bytes = readFileSync(file).length;
  if (stats.written !== LINES) throw new Error(`bench (b): ${stats.written} written, expected ${LINES}`);
  console.log(
    `(b) writer alone: ${LINES} queued lines (${(bytes / 1e6).toFixed(1)} MB) flushed by shutdown in ${(seconds * 1000).toFixed(0)} ms`,
  );
  figures.push(['access-log lines written to a file per second (writer alone)', `${Math.round(LINES / seconds).toLocaleString('en-US')}`]);
}

console.log('\nFigures:');
const labelWidth = Math.max(...figures.map(([label]) => label.length));
for (const [label, value] of figures) console.log(`  ${`${label}:`.padEnd(labelWidth + 1)}  ${value}`);
cleanup();
