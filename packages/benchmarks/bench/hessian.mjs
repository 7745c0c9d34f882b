// @weft/serialization-hessian2 against hessian.js (the Hessian of apache-dubbo-js), same run (issue 14):
// encode and decode of (a) a typed POJO — a class with a declared Java class and Java field kinds, hessian.js given the
// same object as a js-to-java `{ $class, $ }` — and (b) a 1,000-element list of ints. Ratios are Weft ops/s ÷ hessian.js.
import { createRequire } from 'node:module';

import { java } from '@weft/core';
import { Hessian2Serialization } from '@weft/serialization-hessian2';

import { formatRatio, measure, printTable } from '../../core/bench/harness.mjs';

const require = createRequire(import.meta.url);
const hessianJs = require('hessian.js');

class Address {
  static javaClass = 'com.acme.Address';
  static fields = { zip: java.int, city: String, street: String };
}

class User {
  static javaClass = 'com.acme.User';
  static fields = { tags: java.list(String), score: java.double, address: Address, active: java.boolean, id: java.long, age: java.int, name: String };
}

function makeUser() {
  return Object.assign(new User(), {
    id: 1234567890123,
    name: 'Ann Example',
    age: 42,
    active: true,
    score: 98.25,
    tags: ['admin', 'beta', 'eu'],
    address: Object.assign(new Address(), { street: '1 Main Street', city: 'Springfield', zip: 12345 }),
  });
}

/** The same user as js-to-java builds it for hessian.js: every field with its Java class. */
function makeJsToJavaUser() {
  return {
    $class: 'com.acme.User',
    $: {
      tags: { $class: 'java.util.List', $: ['admin', 'beta', 'eu'] },
      score: { $class: 'double', $: 98.25 },
      address: { $class: 'com.acme.Address', $: { zip: { $class: 'int', $: 12345 }, city: 'Springfield', street: '1 Main Street' } },
      active: { $class: 'boolean', $: true },
      id: { $class: 'long', $: 1234567890123 },
      age: { $class: 'int', $: 42 },
      name: 'Ann Example',
    },
  };
}

export async function benchHessian(figures) {
  const codec = new Hessian2Serialization();
  const encode = (value, type) => {
    const out = codec.createOutput();
    out.writeObject(value, type);
    return out.finish();
  };
  const user = makeUser();
  const jsUser = makeJsToJavaUser();
  const list = Array.from({ length: 1000 }, (_, i) => i * 37 - 5000);
  const listType = java.list(java.int);
  const weftUserBytes = encode(user, User);
  const jsUserBytes = hessianJs.encode(jsUser, '2.0');
  const weftListBytes = encode(list, listType);
  const jsListBytes = hessianJs.encode(list, '2.0');
  // Both read each other's bytes: the comparison is of the same wire content.
  if (hessianJs.decode(Buffer.from(weftUserBytes), '2.0').name !== 'Ann Example') throw new Error('hessian.js cannot read Weft’s user');
  if (codec.createInput(jsUserBytes).readObject(User).address.zip !== 12345) throw new Error('Weft cannot read hessian.js’s user');

  const pairs = [
    ['typed POJO encode', () => encode(user, User), () => hessianJs.encode(jsUser, '2.0')],
    ['typed POJO decode (Weft: to the class)', () => codec.createInput(weftUserBytes).readObject(User), () => hessianJs.decode(jsUserBytes, '2.0')],
    ['1,000-int list encode', () => encode(list, listType), () => hessianJs.encode(list, '2.0')],
    ['1,000-int list decode', () => codec.createInput(weftListBytes).readObject(listType), () => hessianJs.decode(jsListBytes, '2.0')],
  ];
  // On a shared machine one measurement swings by ±30 %: each pair is measured in several alternating rounds and
  // the median ratio is reported with its range.
  const rounds = process.env.WEFT_BENCH_QUICK ? 1 : 3;
  const ratios = pairs.map(() => []);
  let rows = [];
  for (let r = 0; r < rounds; r++) {
    rows = [];
    for (let i = 0; i < pairs.length; i++) {
      const [name, weft, peer] = pairs[i];
      const a = await measure(`Weft: ${name}`, weft);
      const b = await measure(`hessian.js: ${name}`, peer);
      rows.push(a, b);
      ratios[i].push(b.nsPerOp / a.nsPerOp);
    }
  }
  printTable(`Hessian2 — @weft/serialization-hessian2 vs hessian.js 2.11 (same run; last of ${rounds} rounds)`, rows, {
    baseline: (row) => (row.name.startsWith('hessian.js') ? undefined : rows[rows.indexOf(row) + 1].name),
  });
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const shown = ratios.map((xs, i) => {
    const range = xs.length > 1 ? ` (${formatRatio(Math.min(...xs))}–${formatRatio(Math.max(...xs))})` : '';
    return `${pairs[i][0]} ${formatRatio(median(xs))}${range}`;
  });
  figures.push(`Hessian2 vs hessian.js, ops/s ratio (Weft ÷ hessian.js, median of ${rounds}): ${shown.join(', ')}`);
}

// Run on its own: node --expose-gc packages/benchmarks/bench/hessian.mjs
if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = [];
  await benchHessian(figures);
  for (const line of figures) console.log(line);
}
