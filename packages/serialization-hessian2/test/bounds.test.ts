import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Measured in a fresh node process, so vitest's own heap does not count. Each hostile body is decoded 200 times; the
// child prints its outcome and the RSS growth over the whole run.
const CHILD = `
import { Hessian2Serialization } from '@weft/serialization-hessian2';
import { java } from '@weft/core';
const codec = new Hessian2Serialization();
const hex = (s) => Uint8Array.from(Buffer.from(s.replace(/ /g, ''), 'hex'));
const int = (n) => { const b = Buffer.alloc(5); b[0] = 0x49; b.writeInt32BE(n, 1); return b.toString('hex'); };
// 30 levels of [x, x] lists sharing the level below: 2^30 leaves if anything expanded the references.
let laughs = '7a'.repeat(30) + '79 53 10 00' + '61'.repeat(4096);
for (let i = 29; i >= 0; i--) laughs += '51' + int(i + 1);
let type = String;
for (let i = 0; i <= 30; i++) type = [type];
const cases = {
  'list header of 10^7 elements': ['58' + int(10_000_000) + '91', undefined],
  'typed list header of 10^7 elements': ['56 04 5b696e74' + int(10_000_000) + '91', undefined],
  'map of 10^5 nested maps': ['48 01 61'.repeat(100_000), undefined],
  '10^5-deep lists': ['79'.repeat(100_000), undefined],
  'string claiming 65 535 characters': ['53 ff ff 61 62', undefined],
  'binary chunks without an end': ['41 80 00' + '00'.repeat(100), undefined],
  'class definition of 10^7 fields': ['43 01 78' + int(10_000_000) + '01 61', undefined],
  'reference loop to itself before it exists': ['51 90', undefined],
  'object of an undefined class': ['6f', undefined],
  'shared references 2^30 leaves deep (typed)': [laughs, type],
};
const results = {};
global.gc();
const before = process.memoryUsage().rss;
const t0 = performance.now();
for (const [name, [body, t]] of Object.entries(cases)) {
  const bytes = hex(body);
  let outcome = 'ok';
  for (let i = 0; i < 200; i++) {
    try {
      codec.createInput(bytes).readObject(t);
    } catch (error) {
      outcome = error.code + ': ' + error.message;
    }
  }
  results[name] = outcome;
}
const ms = performance.now() - t0;
global.gc();
console.log(JSON.stringify({ results, rssGrowth: process.memoryUsage().rss - before, ms }));
`;

describe('hostile input stays bounded', () => {
  it('refuses each with code serialization and its offset, in bounded memory and time', () => {
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], { cwd: packageDir, encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe('');
    const { results, rssGrowth, ms } = JSON.parse(run.stdout) as { results: Record<string, string>; rssGrowth: number; ms: number };
    expect(results).toEqual({
      'list header of 10^7 elements': 'serialization: hessian2: list of 10000000 elements but only 1 bytes left at offset 0.',
      'typed list header of 10^7 elements': 'serialization: hessian2: list of 10000000 elements but only 1 bytes left at offset 0.',
      'map of 10^5 nested maps': 'serialization: hessian2: values nested deeper than 512 levels at offset 1536.',
      '10^5-deep lists': 'serialization: hessian2: values nested deeper than 512 levels at offset 512.',
      'string claiming 65 535 characters': 'serialization: hessian2: truncated string (65535 characters announced, 2 bytes left) at offset 3.',
      'binary chunks without an end': 'serialization: hessian2: truncated binary chunk (32768 bytes needed, 100 left) at offset 3.',
      'class definition of 10^7 fields': 'serialization: hessian2: class definition of 10000000 fields but only 2 bytes left at offset 3.',
      'reference loop to itself before it exists': 'serialization: hessian2: reference #0 to a value not read yet (0 so far) at offset 0.',
      'object of an undefined class': 'serialization: hessian2: object of class definition #15 beyond the 0 defined at offset 0.',
      'shared references 2^30 leaves deep (typed)': 'ok',
    });
    expect(rssGrowth).toBeLessThan(64 * 1024 * 1024);
    expect(ms).toBeLessThan(10_000);
  });
});
