// A chain of ten *different* filter classes vs ten distinct nested closures (the floor) vs ten instances of one
// filter class, each in a fresh process (which functions the JIT inlines moves such short calls by ±10 %), the
// three timed in interleaved rounds (alternate.mjs): prints one JSON line per process, or, run by run.mjs via
// benchFilterChain(), a table and the figure (median of the processes' ratios, and each).
//   node --expose-gc packages/benchmarks/bench/filter-chain.mjs
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { buildFilterChain, Filter, Invocation, Invoker, Logger, Result, URL } from '@weft/core';

import { formatRatio, printTable, summarize } from '../../core/bench/harness.mjs';

import { alternate } from './alternate.mjs';

const N = 10;

async function sample() {
  const silent = new (class extends Logger {
    debug() {}
    info() {}
    warn() {}
    error() {}
  })();
  const done = Promise.resolve(Result.of('ok'));
  const url = URL.parse('injvm://127.0.0.1/bench.Chain');
  class Terminal extends Invoker {
    getUrl() {
      return url;
    }
    invoke() {
      return done;
    }
  }
  // Ten distinct classes, written out (not made by a factory: one literal each, as ten real filters are).
  class F0 extends Filter { invoke(i, v) { return i.invoke(v); } }
  class F1 extends Filter { invoke(i, v) { return i.invoke(v); } }
  class F2 extends Filter { invoke(i, v) { return i.invoke(v); } }
  class F3 extends Filter { invoke(i, v) { return i.invoke(v); } }
  class F4 extends Filter { invoke(i, v) { return i.invoke(v); } }
  class F5 extends Filter { invoke(i, v) { return i.invoke(v); } }
  class F6 extends Filter { invoke(i, v) { return i.invoke(v); } }
  class F7 extends Filter { invoke(i, v) { return i.invoke(v); } }
  class F8 extends Filter { invoke(i, v) { return i.invoke(v); } }
  class F9 extends Filter { invoke(i, v) { return i.invoke(v); } }
  const distinct = [F0, F1, F2, F3, F4, F5, F6, F7, F8, F9].map((F) => new F());
  const same = Array.from({ length: N }, () => new F0());
  const distinctChain = buildFilterChain(new Terminal(), distinct, (f) => f.constructor.name, silent);
  const sameChain = buildFilterChain(new Terminal(), same, () => 'f0', silent);
  // Ten distinct closures, one literal each.
  const c9 = () => done;
  const c8 = (x) => c9(x);
  const c7 = (x) => c8(x);
  const c6 = (x) => c7(x);
  const c5 = (x) => c6(x);
  const c4 = (x) => c5(x);
  const c3 = (x) => c4(x);
  const c2 = (x) => c3(x);
  const c1 = (x) => c2(x);
  const c0 = (x) => c1(x);
  const floor = (x) => c0(x);
  const invocation = new Invocation({ methodName: 'm' });
  const [closures, distinctRow, sameRow] = await alternate([
    { name: 'closures', fn: () => floor(invocation) },
    { name: 'distinct', fn: () => distinctChain.invoke(invocation) },
    { name: 'same', fn: () => sameChain.invoke(invocation) },
  ]);
  // ns per call (10th percentile of the interleaved rounds) and the ratios to the closures.
  return { closures: closures.nsPerOp, distinct: distinctRow.nsPerOp, same: sameRow.nsPerOp, distinctRatio: distinctRow.ratio, sameRatio: sameRow.ratio };
}

/** Runs `processes` fresh samples and adds the table and the figure (for run.mjs). */
export async function benchFilterChain(figures, processes = Number(process.env.WEFT_BENCH_PROCESSES ?? 5)) {
  const script = fileURLToPath(import.meta.url);
  const samples = [];
  for (let i = 0; i < processes; i++) {
    const out = execFileSync(process.execPath, ['--expose-gc', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    samples.push(JSON.parse(out.trim().split('\n').pop()));
  }
  const rows = [
    summarize('10 distinct nested closures (floor)', samples.map((s) => s.closures)),
    summarize('Weft: 10 distinct no-op filter classes', samples.map((s) => s.distinct)),
    summarize('Weft: 10 no-op filters of one class', samples.map((s) => s.same)),
  ];
  printTable(`Filter chain — 10 distinct filter classes vs 10 distinct closures (awaited; median of ${processes} processes)`, rows, {
    baseline: '10 distinct nested closures (floor)',
  });
  const ratios = samples.map((s) => s.distinctRatio);
  const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  figures.push(
    `10 distinct no-op filter classes: ${formatRatio(median(ratios))} ten distinct closures (goal ≤ 1.5×; median of the processes' ` +
      `interleaved-round ratios: ${ratios.map(formatRatio).join(', ')}); one class ×10: ${formatRatio(median(samples.map((s) => s.sameRatio)))}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${JSON.stringify(await sample())}\n`);
