import { it } from 'vitest';
import { WeftApplication, defineService, Cluster, RpcError } from '@weft/core';
import { MockRegistry, MockClusterInvoker, parseMockValue, parseMockAction, normalizeMock, emptyValue } from '@weft/mock';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

class User { name?: string; constructor() { } }
class InsufficientFunds extends Error { constructor(m: string) { super(m); this.name = 'InsufficientFunds'; } }
const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String }, count: { returns: Number }, ok: { returns: Boolean },
  user: { returns: User }, users: { returns: [User] }, tags: { returns: Set }, meta: { returns: Map },
  info: { returns: Object }, when: { returns: Date }, nothing: {}, risky: { returns: String, throws: [InsufficientFunds] },
});
const show = async (label: string, f: () => Promise<unknown>) => {
  try { const v = await f(); console.log(label, '=>', v); } catch (e) { console.log(label, 'THROWS', (e as Error).constructor.name, (e as RpcError).code, (e as Error).message); }
};
it('explore', async () => {
  const { root, cleanup } = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock']);
  const logger = new RecordingLogger();
  const app = await WeftApplication.start({ root, name: 'shop', logger });
  try {
    const impl = { sayHello: (n: string) => `hi ${n}`, count: () => 1, ok: () => true, user: () => new User(), users: () => [], tags: () => new Set(), meta: () => new Map(), info: () => ({}), when: () => new Date(), nothing: () => {}, risky: () => { throw new InsufficientFunds('no money'); } };
    const exp = await app.export(Greeter, impl);
    const g = await app.refer(Greeter, { mock: 'force:return null', url: 'injvm://127.0.0.1/org.acme.Greeter;mock://0.0.0.0/org.acme.Greeter?sayHello.mock=return+aa', retries: 0 });
    await show('sayHello force mock://', () => g.sayHello('x'));
    await show('count force mock://', () => g.count());
    app.override(g, { 'sayHello.mock': 'force:return bb' });
    await show('sayHello override', () => g.sayHello('x'));
    app.override(g, { mock: 'force:return 7' });
    await show('count override', () => g.count());
    app.override(g, { mock: 'false' });
    await show('sayHello none', () => g.sayHello('x'));
    await show('refer bad', () => app.refer(Greeter, { mock: 'return {oops' }));
    await show('refer bad2', () => app.refer(Greeter, { mock: 'throw Nope' }));
    await show('refer bad3', () => app.refer(Greeter, { mock: 'return abc' }));
    await show('refer count', () => app.refer(Greeter, { methods: { count: { mock: 'return abc' } } }));
    await show('refer fail:force', () => app.refer(Greeter, { methods: { count: { mock: 'fail:force:return 2' } } }));
    console.log(parseMockAction('force:return'), normalizeMock('fail:force:x'), emptyValue(Object));
    await exp.unexport();
  } finally { await app.shutdown(); cleanup(); }
});
it('probe2', () => {
  const G = defineService('x.G', { count: { returns: Number }, o: { returns: Object } });
  for (const t of ['{oops', '{a:1,}', '[1,]', '{a 1}', '{"a":1', '[1 2]', '{a: "x}', '{a: "\\q"}', '{a: 01}', '{a: 1} x', '{a: -}', '{a: nul}', '']) {
    try { console.log(JSON.stringify(t), parseMockValue(t, G.getMethod('o'))); } catch (e) { console.log(JSON.stringify(t), (e as Error).name, (e as Error).message); }
  }
  try { parseMockAction('return 100%'); } catch (e) { console.log((e as Error).message); }
  try { parseMockAction('return %E2%82'); } catch (e) { console.log((e as Error).message); }
});
