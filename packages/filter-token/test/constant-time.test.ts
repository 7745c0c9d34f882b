import { describe, expect, it } from 'vitest';

import { constantTimeEqual } from '@weft/filter-token';

// Statistical: interleaved batches per candidate, medians compared. The bound is generous against noise but below
// the trend the old loop had (short candidates read past their end into NaN: 0 characters ran 1.35–1.4× slower
// than 36). Candidates are flat strings decoded from bytes, as tokens arrive from the wire (header values, JSON).
const SECRET = '0b9e7a3c-1f2d-4e5f-8a9b-0c1d2e3f4a5b';

function medianNsPerCompare(candidates: readonly string[], rounds: number, batch: number): number[] {
  const samples = candidates.map(() => [] as number[]);
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    for (let c = 0; c < candidates.length; c++) {
      const candidate = candidates[c]!;
      const start = process.hrtime.bigint();
      for (let i = 0; i < batch; i++) if (constantTimeEqual(SECRET, candidate)) sink++;
      samples[c]!.push(Number(process.hrtime.bigint() - start) / batch);
    }
  }
  expect(sink).toBe(candidates.filter((c) => c === SECRET).length * rounds * batch);
  return samples.map((s) => s.sort((a, b) => a - b)[s.length >> 1]!);
}

describe('constantTimeEqual timing', () => {
  it('takes the same time for candidates of every length from 0 to twice the secret, and for the secret itself', () => {
    const lengths = [0, 1, 9, 18, 35, 36, 37, 54, 72];
    const fromWire = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');
    const candidates = [...lengths.map((n) => 'x'.repeat(n)), SECRET, `${SECRET.slice(0, -1)}c`, `a${SECRET.slice(1)}`].map(fromWire);
    medianNsPerCompare(candidates, 20, 500); // warm-up: every shape compiled before measuring
    const medians = medianNsPerCompare(candidates, 150, 400);
    const spread = Math.max(...medians) / Math.min(...medians);
    expect(spread, `median ns per compare by candidate: ${medians.map((m) => m.toFixed(0)).join(', ')}`).toBeLessThan(1.3);
  });

  it('still answers correctly at every length', () => {
    expect(constantTimeEqual(SECRET, SECRET)).toBe(true);
    for (const candidate of ['', SECRET.slice(0, 1), SECRET.slice(0, -1), `${SECRET}x`, `${SECRET}\u0000`, 'x'.repeat(72)]) {
      expect(constantTimeEqual(SECRET, candidate)).toBe(false);
    }
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('', '\u0000')).toBe(false);
    expect(constantTimeEqual('\u0000', '')).toBe(false);
  });
});
