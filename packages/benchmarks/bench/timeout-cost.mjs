// What an armed deadline costs a call that waits: a protocol invoker (AbstractInvoker) answering with a pending
// result, with `timeout=0` (nothing armed) and with the default `timeout=1000` (one entry on the deadline wheel),
// awaited; and the heap allocated per call by each. Run by run.mjs via benchTimeoutCost(); alone:
//   node --expose-gc packages/benchmarks/bench/timeout-cost.mjs
import { fileURLToPath } from 'node:url';

import * as core from '@weft/core';

import { formatNs, measure, printTable } from '../../core/bench/harness.mjs';

const { AbstractInvoker, Invocation, Result, URL } = core;
// A core without PendingResult (before issue 15) answers with the native promise itself.
const PendingResult = core.PendingResult;

class Answering extends AbstractInvoker {
  constructor(url) {
    super(url);
    this.done = Promise.resolve(Result.of('ok'));
  }
  doInvoke() {
    // A call that waits: a pending answer settled on the next microtask, as a protocol's response would be.
    return PendingResult === undefined ? this.done : PendingResult.from(this.done);
  }
}

/** Bytes allocated per call, GC'd before and measured over many calls (rough: zero means zero). */
async function heapPerCall(invoker, invocation) {
  const n = 100_000;
  for (let i = 0; i < n; i++) await invoker.invoke(invocation);
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  const pending = new Array(n);
  // Held until measured, so that nothing they allocated is collected in between.
  for (let i = 0; i < n; i++) pending[i] = invoker.invoke(invocation);
  const after = process.memoryUsage().heapUsed;
  await Promise.all(pending);
  return (after - before) / n;
}

/** Adds the table and the figure (for run.mjs). */
export async function benchTimeoutCost(figures) {
  const free = new Answering(URL.parse('injvm://127.0.0.1/bench.Timed?timeout=0'));
  const armed = new Answering(URL.parse('injvm://127.0.0.1/bench.Timed?timeout=1000'));
  const invocation = new Invocation({ methodName: 'sayHello', args: ['ann'] });
  const rows = [
    await measure('pending call, timeout 0 (nothing armed)', () => free.invoke(invocation)),
    await measure('pending call, timeout 1000 (armed on the wheel)', () => armed.invoke(invocation)),
  ];
  printTable('An armed deadline on a call that waits (AbstractInvoker, awaited)', rows, { baseline: 'pending call, timeout 0 (nothing armed)' });
  const bytesFree = await heapPerCall(free, invocation);
  const bytesArmed = await heapPerCall(armed, invocation);
  figures.push(
    `armed deadline (timeout 1000) on a pending call: +${formatNs(rows[1].nsPerOp - rows[0].nsPerOp)} per call, ` +
      `+${Math.round(bytesArmed - bytesFree)} B allocated per call (${Math.round(bytesFree)} B without it)`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = [];
  await benchTimeoutCost(figures);
  console.log(figures.join('\n'));
}
