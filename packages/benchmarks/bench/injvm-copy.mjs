// The injvm copy (json codec, copying mode) of one method's arguments and result vs a plain
// JSON.parse(JSON.stringify(x)) and structuredClone(x) of the same values, per shape. The copier also realises the
// declared types (Dates, classes, Maps, Sets), which the plain copies do not. Exported as a function for run.mjs;
// `node packages/benchmarks/bench/injvm-copy.mjs` runs it alone.
import { defineService, JsonSerialization, mapOf } from '@weft/core';

import { formatRatio, measure, printTable } from '../../core/bench/harness.mjs';

class Greeting {
  text = '';
  at = new Date(0);
  tags = [];
  static fields = { at: Date, tags: [String] };
}

export async function benchInjvmCopy(figures) {
  const Service = defineService('bench.Copy', {
    hello: { args: [String], returns: String },
    greet: { args: [Greeting], returns: Greeting },
    list: { args: [[Number]], returns: [Greeting] },
    record: { args: [Object], returns: Object },
    byName: { args: [String], returns: mapOf(String, Greeting) },
  });
  const json = new JsonSerialization();
  const shapes = [
    ['hello', ['ann'], 'hello ann'],
    ['greet', [{ text: 'hi', at: new Date(1), tags: ['a', 'b'] }], { text: 'hi', at: new Date(2), tags: ['a'] }],
    ['list', [[1, 2, 3, 4, 5]], Array.from({ length: 10 }, (_, i) => ({ text: `t${i}`, at: new Date(i), tags: ['x'] }))],
    ['record', [{ a: 1, b: 'two', c: [1, 2, { d: true }] }], { a: 1, b: 'two', c: [1, 2, { d: true }] }],
    ['byName', ['x'], new Map(Array.from({ length: 5 }, (_, i) => [`k${i}`, { text: 'm', at: new Date(i), tags: [] }]))],
  ];
  const ratios = [];
  for (const [name, args, result] of shapes) {
    const copier = json.copier(Service.getMethod(name));
    const plainResult = result instanceof Map ? [...result] : result;
    const rows = [
      await measure(`${name}: Weft injvm copy (copy + realise)`, () => {
        copier.args(args);
        copier.result(result);
      }),
      await measure(`${name}: JSON.parse(JSON.stringify(x))`, () => {
        JSON.parse(JSON.stringify(args));
        JSON.parse(JSON.stringify(plainResult));
      }),
      await measure(`${name}: structuredClone(x)`, () => {
        structuredClone(args);
        structuredClone(result);
      }),
    ];
    printTable(`injvm copy of ${name}() arguments + result`, rows, { baseline: rows[0].name });
    ratios.push(`${name} ${formatRatio(rows[0].nsPerOp / Math.min(rows[1].nsPerOp, rows[2].nsPerOp))}`);
  }
  figures.push(`injvm copy (json, copy + realise) ÷ the faster of JSON.parse(JSON.stringify(x)) and structuredClone(x): ${ratios.join(', ')} (target ≈ 1×)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = [];
  await benchInjvmCopy(figures);
  for (const line of figures) console.log(line);
}
