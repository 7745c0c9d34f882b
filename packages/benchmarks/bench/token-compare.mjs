// Token comparison (@weft/filter-token): time per compare by candidate length, 0 … 2× the secret's length, and
// for the secret itself — the spread is what an attacker timing refusals could learn from (goal: within noise).
import { constantTimeEqual } from '@weft/filter-token';

import { formatRatio } from '../../core/bench/harness.mjs';

export async function benchTokenCompare(figures) {
  const secret = '0b9e7a3c-1f2d-4e5f-8a9b-0c1d2e3f4a5b';
  const lengths = [0, 1, 18, 35, 36, 37, 54, 72];
  // Flat strings decoded from bytes, as tokens arrive from a header or a JSON body.
  const fromWire = (text) => Buffer.from(text, 'utf8').toString('utf8');
  const candidates = [...lengths.map((n) => ({ name: `${n} chars`, value: fromWire('x'.repeat(n)) })), { name: 'the secret', value: fromWire(secret) }];
  const rounds = 400;
  const batch = 1000;
  const samples = candidates.map(() => []);
  let sink = 0;
  for (let r = 0; r < rounds + 40; r++) {
    for (let c = 0; c < candidates.length; c++) {
      const value = candidates[c].value;
      const start = process.hrtime.bigint();
      for (let i = 0; i < batch; i++) if (constantTimeEqual(secret, value)) sink++;
      if (r >= 40) samples[c].push(Number(process.hrtime.bigint() - start) / batch);
    }
  }
  if (sink === 0) throw new Error('the secret never matched itself');
  const medians = samples.map((s) => s.sort((a, b) => a - b)[s.length >> 1]);
  console.log(`\nToken comparison — median ns per constantTimeEqual over ${rounds} interleaved rounds (secret: 36 chars)`);
  for (let c = 0; c < candidates.length; c++) console.log(`  ${candidates[c].name.padEnd(12)} ${medians[c].toFixed(1)} ns`);
  const spread = Math.max(...medians) / Math.min(...medians);
  figures.push(`token comparison: slowest/fastest candidate (0…72 chars and the secret) = ${formatRatio(spread)} (goal: within noise, ≤ 1.1×)`);
}
