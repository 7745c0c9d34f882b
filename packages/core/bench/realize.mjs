// Benchmarks of value realisation (`realize` and the compiled `Realizer`). Run: `node --expose-gc
// packages/core/bench/realize.mjs` after a build. Rows:
//   flat     a class with five scalar fields (no field declarations)
//   basket   ten `lines: [Line]` of three scalar fields (no Dates), next to a hand-written nested copy
//   nested   an order: `at: Date`, ten `items: [Item]` with a `Date` each, `tags: setOf(String)`, `byId: mapOf(String, Item)`
// `realize()` compiles the descriptor on each call (the mock package's use); `Realizer#type()` compiles once and
// the figure is the per-call path the injvm copier and the tri codec run. The floor is a hand-written copy.
import * as core from '@weft/core';

import { blackhole, measure, printTable } from './harness.mjs';

const { realize } = core;

class User {
  name = '';
  age = 0;
  email = '';
  active = false;
  score = 0;
}

class Item {
  sku = '';
  price = 0;
  at = new Date(0);
}
class Order {
  id = '';
  at = new Date(0);
  items = [];
  tags = new Set();
  byId = new Map();
}
class Line {
  sku = '';
  price = 0;
  qty = 0;
}
class Basket {
  id = '';
  lines = [];
}
if (typeof core.mapOf === 'function') {
  Basket.fields = { lines: [Line] };
  Item.fields = { at: Date };
  Order.fields = { at: Date, items: [Item], tags: core.setOf(String), byId: core.mapOf(String, Item) };
}

const flat = { name: 'ann', age: 42, email: 'ann@example.org', active: true, score: 3.5 };
const items = Array.from({ length: 10 }, (_, i) => ({ sku: `s${i}`, price: i * 1.5, at: '2024-01-01T00:00:00.000Z' }));
const nested = {
  id: 'o-1',
  at: '2024-01-01T00:00:00.000Z',
  items,
  tags: ['a', 'b', 'c'],
  byId: items.slice(0, 3).map((item) => [item.sku, item]),
};

const basket = { id: 'b-1', lines: Array.from({ length: 10 }, (_, i) => ({ sku: `s${i}`, price: i * 1.5, qty: i })) };
const floorBasket = (v) => {
  const o = Object.create(Basket.prototype);
  for (const k of Object.keys(v)) o[k] = v[k];
  o.lines = v.lines.map((line) => {
    const l = Object.create(Line.prototype);
    for (const k of Object.keys(line)) l[k] = line[k];
    return l;
  });
  return o;
};

const floorFlat = (v) => {
  const o = Object.create(User.prototype);
  for (const k of Object.keys(v)) o[k] = v[k];
  return o;
};

const rows = [];
rows.push(await measure('flat: hand-written copy (floor)', () => blackhole(floorFlat(flat))));
rows.push(await measure('flat: realize(value, User)', () => blackhole(realize(flat, User, 'x() result'))));
if (typeof core.Realizer === 'function') {
  const realizer = new core.Realizer();
  const flatOf = realizer.type(User);
  rows.push(await measure('flat: Realizer#type(User) (compiled)', () => blackhole(flatOf(flat, 'x() result'))));
  const basketOf = realizer.type(Basket);
  rows.push(await measure('basket (10 lines, no Dates): hand-written copy', () => blackhole(floorBasket(basket))));
  rows.push(await measure('basket: Realizer#type(Basket) (compiled)', () => blackhole(basketOf(basket, 'x() result'))));
  const nestedOf = realizer.type(Order);
  rows.push(await measure('nested: realize(value, Order)', () => blackhole(realize(nested, Order, 'x() result'))));
  rows.push(await measure('nested: Realizer#type(Order) (compiled)', () => blackhole(nestedOf(nested, 'x() result'))));
} else {
  rows.push(await measure('nested: realize(value, Order) (shallow: fields not declared)', () => blackhole(realize(nested, Order, 'x() result'))));
}
printTable('realisation', rows, { baseline: 'flat: hand-written copy (floor)' });
