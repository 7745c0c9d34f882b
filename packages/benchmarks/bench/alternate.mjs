// Interleaved measurement for a loaded machine: the rows are timed in alternating short rounds (A B C A B C …) of
// about a millisecond, so a change in the CPU time the process gets (other processes, frequency) hits every row
// alike, and a round the scheduler preempted is an outlier that a low percentile leaves out. Reported per row:
// the 10th percentile of its rounds' ns per call (the uncontended speed), and its ratio to the first row's.
// Each row gets its own timing loop (a fresh function: a monomorphic call site).
//   const { rows } = await alternate([{ name, fn }, …], { rounds: 21 });
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;

function loopFor(isAsync) {
  return isAsync
    ? new AsyncFunction('fn', 'n', 'let s = 0; for (let i = 0; i < n; i++) { if ((await fn()) === undefined) s++; } return s;')
    : new Function('fn', 'n', 'let s = 0; for (let i = 0; i < n; i++) { if (fn() === undefined) s++; } return s;');
}

const percentile = (values, p) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

/** Times `entries` in alternating rounds of about `roundMs` each; returns per-row p10 ns/call and ratios vs the first. */
export async function alternate(entries, { rounds = 301, roundMs = 1, warmupMs = 600 } = {}) {
  const rows = entries.map(({ name, fn }) => {
    const probe = fn();
    const isAsync = probe !== null && typeof probe === 'object' && typeof probe.then === 'function';
    return { name, fn, isAsync, loop: loopFor(isAsync), batch: 1, ns: [] };
  });
  const run = async (row, n) => {
    const t0 = process.hrtime.bigint();
    await row.loop(row.fn, n);
    return Number(process.hrtime.bigint() - t0);
  };
  // Warm-up, and a batch per row sized to take about roundMs.
  for (const row of rows) {
    const end = Date.now() + warmupMs;
    let n = 64;
    while (Date.now() < end) {
      const ns = await run(row, n);
      if (ns < roundMs * 1e6) n *= 2;
      row.batch = Math.max(1, Math.round((n * roundMs * 1e6) / Math.max(ns, 1)));
    }
  }
  globalThis.gc?.();
  for (let r = 0; r < rounds; r++) {
    for (const row of rows) row.ns.push((await run(row, row.batch)) / row.batch);
  }
  const base = percentile(rows[0].ns, 0.1);
  return rows.map((row) => {
    const ns = percentile(row.ns, 0.1);
    return { name: row.name, nsPerOp: ns, median: percentile(row.ns, 0.5), ratio: ns / base };
  });
}
