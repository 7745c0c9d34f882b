import { defineService, Logger, WeftApplication } from '@weft/core';
import { createTestApp } from '@weft/test-utils';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
class L extends Logger { debug(){} info(){} warn(){} error(){} }
const G = defineService('bench.Greeter', { sayHello: { args: [String, Number], returns: String } });
const t = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-accesslog']);
const app = await WeftApplication.start({ root: t.root, logger: new L() });
const dir = mkdtempSync(join(tmpdir(), 'p-'));
await app.export(G, { sayHello: (a, n) => a + n }, { parameters: { accesslog: process.argv[2] === 'on' ? join(dir, 'x.log') : '' } });
const p = await app.refer(G, { cluster: 'failfast' });
for (let r = 0; r < 5; r++) { const t0 = performance.now(); for (let i = 0; i < 200000; i++) await p.sayHello('ann', i); console.log(((performance.now() - t0) / 200000 * 1000).toFixed(0), 'ns'); }
await app.shutdown(); t.cleanup();
