// A tiny, dependency-free measurement harness for Weft's benchmarks (reused by every package's bench/run.mjs).
//
// HOW TO READ THE OUTPUT
//   ns/op    median time of one call, over all measured rounds (a round = one batch of calls timed together).
//            Lower is better. The median ignores outliers (GC pauses, timer ticks, other processes).
//   ops/s    1e9 / median ns/op: calls per second on one thread.
//   ±MAD     median absolute deviation of the rounds, as % of the median: the round-to-round noise. Under ~3 %
//            is steady; above ~10 % the figure is unreliable (machine busy, GC-heavy code, too few rounds).
//   min…max  fastest and slowest round, in ns/op. A max far above the median usually means GC or JIT activity.
//   ratio    this row's ns/op ÷ the baseline row's ns/op (formatted `1.34×`). The baseline is the floor the
//            operation is compared to (e.g. a plain `Map.get`), so `1.00×` means "as cheap as the floor" and
//            `20×` means twenty floors. Ratios are steadier across machines than absolute times.
//   rounds×batch  how many rounds were timed, and how many calls each round made.
//
//   Figures of a few ns/op are at the resolution of the measuring loop itself (a call and a compare): compare
//   such rows to their baseline, not to zero, and treat differences under ~1 ns as noise — from one process to
//   the next, where the JIT places code can move such a row by about 1 ns even when ±MAD is tiny. Absolute
//   numbers vary across machines and Node versions; ratios much less.
//
// HOW IT MEASURES
//   1. Detects whether `fn` is async (it returns a thenable on a probe call); async fns are awaited one call
//      after another (sequential latency, not throughput under concurrency).
//   2. Calibrates the batch size (doubling) until a batch takes ≥ ~10 ms, unless `batch` is given.
//   3. Warms up (JIT) for `warmupMs`, calling `global.gc()` before and after when run with `--expose-gc`.
//   4. Times batches until both `minTimeMs` have elapsed and `minRounds` (≥ 7) rounds are done (wall time,
//      including untimed `setup` calls).
//   Each result is compared with a private sentinel and counted into a sink, so the engine cannot drop the
//   call as dead code. The timing loop is compiled afresh for every measurement (`new Function`), so the call
//   site of one benchmark is not made polymorphic by the functions of the others.
//
// API
//   measure(name, fn, { minTimeMs = 700, warmupMs = 300, batch, minRounds = 7, maxRounds = 2000, setup }) → Promise<row>
//       setup(n): optional, called (and awaited) before every batch, untimed, with the number of calls the batch
//       will make — e.g. to build n fresh inputs that `fn` consumes one per call (then pass a fixed `batch`).
//   printTable(title, rows, { baseline })     baseline: the name of the row the ratio column divides by, or a
//                                            function row → its own baseline row's name
//   summarize(name, samplesNs, batch = 1)    → row, from per-op times you measured yourself (e.g. in child processes)
//   formatNs(ns) → '12.3 ns' | '4.56 µs' | '7.89 ms' | '1.23 s'
//   blackhole(value)                         keep a value alive (counts into the sink)

const SENTINEL = Object.freeze({ sentinel: true });
let sink = 0;

/** Keeps `value` observable so that computing it cannot be optimised away. */
export function blackhole(value) {
  if (value === SENTINEL) sink++;
  return value;
}

/** The sink's value (never meaningful; exposed so that it is observably used). */
export function sinkValue() {
  return sink;
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;

function makeSyncLoop() {
  // A fresh function per measurement: its own feedback, its own optimised code, a monomorphic `fn()` site.
  return new Function(
    'fn',
    'n',
    'S',
    'let hits = 0;\nfor (let i = 0; i < n; i++) { if (fn() === S) hits++; }\nreturn hits;',
  );
}

function makeAsyncLoop() {
  return new AsyncFunction(
    'fn',
    'n',
    'S',
    'let hits = 0;\nfor (let i = 0; i < n; i++) { if ((await fn()) === S) hits++; }\nreturn hits;',
  );
}

const now = () => process.hrtime.bigint();

function gc() {
  if (typeof globalThis.gc === 'function') globalThis.gc();
}

/** Median of a sorted array. */
function medianOf(sorted) {
  const n = sorted.length;
  if (n === 0) return NaN;
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Builds a result row from per-op samples in nanoseconds (one per round).
 * @returns {{ name: string, nsPerOp: number, opsPerSec: number, min: number, max: number, mad: number,
 *   madPct: number, rounds: number, batch: number, samples: number[] }}
 */
export function summarize(name, samplesNs, batch = 1) {
  const sorted = [...samplesNs].sort((a, b) => a - b);
  const median = medianOf(sorted);
  const mad = medianOf(sorted.map((s) => Math.abs(s - median)).sort((a, b) => a - b));
  return {
    name,
    nsPerOp: median,
    opsPerSec: median > 0 ? 1e9 / median : Infinity,
    min: sorted[0],
    max: sorted[sorted.length - 1],
    mad,
    madPct: median > 0 ? (mad / median) * 100 : 0,
    rounds: sorted.length,
    batch,
    samples: sorted,
  };
}

/**
 * Measures `fn` and returns its row (median ns/op, ops/s, spread).
 *
 * @param {string} name
 * @param {() => unknown} fn  one operation; may be async (each call is awaited before the next)
 * @param {{ minTimeMs?: number, warmupMs?: number, batch?: number, minRounds?: number, maxRounds?: number,
 *   targetBatchMs?: number, setup?: (n: number) => unknown }} [options]
 */
export async function measure(name, fn, options = {}) {
  const { minTimeMs = 700, warmupMs = 300, batch: fixedBatch, maxRounds = 2000, targetBatchMs = 10, setup } = options;
  const minRounds = Math.max(7, options.minRounds ?? 7);
  if (setup !== undefined) await setup(1);
  const probe = fn();
  const isAsync = probe !== null && (typeof probe === 'object' || typeof probe === 'function') && typeof probe.then === 'function';
  if (isAsync) await probe;
  else blackhole(probe);

  const loop = isAsync ? makeAsyncLoop() : makeSyncLoop();
  const timeBatch = isAsync
    ? async (n) => {
        const t0 = now();
        sink += await loop(fn, n, SENTINEL);
        return Number(now() - t0);
      }
    : (n) => {
        const t0 = now();
        sink += loop(fn, n, SENTINEL);
        return Number(now() - t0);
      };
  const runBatch =
    setup === undefined
      ? timeBatch
      : async (n) => {
          await setup(n);
          return timeBatch(n);
        };

  gc();
  // Calibrate: double the batch until one takes ≥ targetBatchMs (this is part of the warm-up).
  const warmStart = now();
  let batch = fixedBatch ?? 1;
  if (fixedBatch === undefined) {
    const target = targetBatchMs * 1e6;
    for (;;) {
      const took = await runBatch(batch);
      if (took >= target || batch >= 2 ** 30) {
        // Round up so a batch lands at the target even if this one was barely over or under.
        batch = Math.max(1, Math.ceil((batch * target) / Math.max(took, 1)));
        break;
      }
      batch = took < target / 64 ? batch * 8 : batch * 2;
    }
  }
  // Warm up for the rest of warmupMs.
  while (Number(now() - warmStart) < warmupMs * 1e6) await runBatch(batch);
  gc();

  const samples = [];
  const start = now();
  while (samples.length < maxRounds && (samples.length < minRounds || Number(now() - start) < minTimeMs * 1e6)) {
    samples.push((await runBatch(batch)) / batch);
  }
  return summarize(name, samples, batch);
}

/** Formats nanoseconds with 3 significant digits and a unit: `12.3 ns`, `4.56 µs`, `7.89 ms`, `1.23 s`. */
export function formatNs(ns) {
  if (!Number.isFinite(ns)) return String(ns);
  const abs = Math.abs(ns);
  const [value, unit] = abs < 1e3 ? [ns, 'ns'] : abs < 1e6 ? [ns / 1e3, 'µs'] : abs < 1e9 ? [ns / 1e6, 'ms'] : [ns / 1e9, 's'];
  return `${sig3(value)} ${unit}`;
}

function sig3(v) {
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function formatOps(ops) {
  if (!Number.isFinite(ops)) return '∞';
  if (ops >= 1e9) return `${sig3(ops / 1e9)} G`;
  if (ops >= 1e6) return `${sig3(ops / 1e6)} M`;
  if (ops >= 1e3) return `${sig3(ops / 1e3)} k`;
  return sig3(ops);
}

/** Formats a ratio like `1.34×` (3 significant digits). */
export function formatRatio(r) {
  return Number.isFinite(r) ? `${sig3(r)}×` : '—';
}

/**
 * Prints a table of rows: name, ns/op, ops/s, ±MAD, min…max, rounds×batch and, with `baseline`, the ratio to a
 * baseline row.
 *
 * @param {string} title
 * @param {Array<ReturnType<typeof summarize>>} rows
 * @param {{ baseline?: string | ((row: ReturnType<typeof summarize>) => string | undefined) }} [options]
 *   baseline: the name of the row every ratio divides by; or a function giving each row's baseline row name (for
 *   tables pairing several operations with their own floors; a row whose function returns undefined gets no ratio)
 */
export function printTable(title, rows, { baseline } = {}) {
  const byName = new Map(rows.map((r) => [r.name, r]));
  const baseNameOf = typeof baseline === 'function' ? baseline : () => baseline;
  const baseOf = (row) => {
    const name = baseNameOf(row);
    if (name === undefined) return undefined;
    const base = byName.get(name);
    if (base === undefined) throw new Error(`printTable: no row named ${JSON.stringify(name)}`);
    return base;
  };
  const bases = rows.map(baseOf);
  const isBase = new Set(bases);
  const header = ['', 'ns/op', 'ops/s', '±MAD', 'min…max', 'rounds×batch'];
  const withRatio = bases.some((b) => b !== undefined);
  if (withRatio) header.push(typeof baseline === 'string' ? `ratio (vs ${baseline})` : 'ratio (vs its floor)');
  const body = rows.map((r, i) => {
    const cells = [
      r.name,
      formatNs(r.nsPerOp),
      formatOps(r.opsPerSec),
      `${r.madPct.toFixed(1)}%`,
      `${formatNs(r.min)} … ${formatNs(r.max)}`,
      `${r.rounds}×${r.batch}`,
    ];
    const base = bases[i];
    if (withRatio) {
      cells.push(isBase.has(r) && (base === undefined || base === r) ? '1.00× (baseline)' : base === undefined ? '' : formatRatio(r.nsPerOp / base.nsPerOp));
    }
    return cells;
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((c) => c[i].length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '─'.repeat(w)).join('  '));
  for (const cells of body) console.log(line(cells));
}
