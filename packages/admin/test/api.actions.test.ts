// Actions applied through the console change what running Weft consumers do (providers and consumers are real
// applications exporting over `tri`, discovered through an embedded registry): force mock → the next call answers
// the mocked value; remove → real answers again; weight 0 drains a provider; disable → no calls; condition routes
// steer calls; the breaker can be forced. Without "confirm" an action only answers its plan and writes nothing;
// invalid input is refused with the validators' messages.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { readOverrideRules, RegistrySession, URL, type WeftApplication } from '@weft/core';
import { startAdmin, type AdminServer } from '@weft/admin';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

import { AdminClient, eventually } from './support/admin-client.ts';
import { outcome, startConsumer, startProvider, type GreeterClient, type RunningProvider } from './support/services.ts';

const TOKEN = 'console-test-token';
const SERVICE = 'org.acme.Greeter';
let app: TestApp;
let dir: string;
let registry: string;
let admin: AdminServer;
let client: AdminClient;
let providers: RunningProvider[];
let consumer: { app: WeftApplication; greeter: GreeterClient };
const apps: WeftApplication[] = [];
const auditFile = () => join(dir, 'audit.jsonl');

beforeAll(async () => {
  app = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/protocol-triple', '@weft/registry-embedded', '@weft/routers', '@weft/filter-circuitbreaker'], { prefix: 'weft-admin-actions' });
  dir = mkdtempSync(join(tmpdir(), 'weft-admin-actions-'));
  registry = `embedded://${dir}`;
  const live = `${registry}?poll.interval=50&file-cache=false`;
  providers = [await startProvider(app.root, live, 'a'), await startProvider(app.root, live, 'b')];
  consumer = await startConsumer(app.root, live);
  apps.push(...providers.map((p) => p.app), consumer.app);
  admin = await startAdmin({ registry, port: 0, token: TOKEN, logger: new RecordingLogger(), auditFile: auditFile() });
  client = new AdminClient(admin.url);
  await client.login(TOKEN);
  // both providers answer before any rule
  await eventually(() => both(), (seen) => seen.size === 2);
});

afterAll(async () => {
  await admin?.close();
  for (const a of apps.splice(0)) await a.shutdown({ timeout: 1000 });
  app?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  // every test starts without rules
  const session = await RegistrySession.open(URL.parse(registry), { root: app.root, timeout: 5000 });
  try {
    for (const rule of await readOverrideRules(session, SERVICE)) await session.registry.unregister(rule);
    const routes = await client.call('DELETE', `/api/services/${SERVICE}/routes`, { kind: 'condition', confirm: true });
    expect([200, 404]).toContain(routes.status);
  } finally {
    await session.close();
  }
  await eventually(() => outcome(() => consumer.greeter.sayHello('x')), (o) => o.startsWith('ok: hello x from'));
});

/** Which providers answer 40 calls. */
async function both(): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < 40; i++) seen.add((await consumer.greeter.sayHello('ann')).slice(-1));
  return seen;
}

describe('mock', () => {
  it('without confirm it answers the plan and writes nothing; with confirm the consumer answers the mock; DELETE brings real answers back', async () => {
    const planned = await client.act('POST', `/api/services/${SERVICE}/mock`, { method: 'sayHello', mock: 'force:return "degraded"' });
    const rule = 'override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&sayHello.mock=force:return%20%22degraded%22';
    expect(planned).toEqual({
      plan: {
        summary: `Mock sayHello of ${SERVICE} with "force:return "degraded"" for every consumer`,
        rules: [{ op: 'write', node: expect.stringMatching(/^\/dubbo\/org\.acme\.Greeter\/configurators\/override%3A%2F%2F0\.0\.0\.0/), url: rule }],
        zkCli: [expect.stringMatching(/^create \/dubbo\/org\.acme\.Greeter\/configurators\/override%3A/)],
        cli: `weft override set --registry ${registry} --service org.acme.Greeter 'sayHello.mock=force:return "degraded"'`,
      },
    });
    expect((await client.get(`/api/services/${SERVICE}`)).overrides).toEqual([]);
    expect(await consumer.greeter.sayHello('ann')).toMatch(/^hello ann from [ab]$/);

    const applied = await client.act('POST', `/api/services/${SERVICE}/mock`, { method: 'sayHello', mock: 'force:return "degraded"', confirm: true });
    expect(applied).toEqual({ applied: true, plan: planned.plan });
    await eventually(() => outcome(() => consumer.greeter.sayHello('ann')), (o) => o === 'ok: degraded');
    const callsBefore = providers[0]!.calls + providers[1]!.calls;
    expect(await consumer.greeter.sayHello('bob')).toBe('degraded');
    expect(await consumer.greeter.count()).toBe(42);
    // the mocked calls never reached a provider (count did, once)
    expect(providers[0]!.calls + providers[1]!.calls).toBe(callsBefore + 1);

    const listed = await client.get(`/api/services?q=greeter`);
    expect(listed).toEqual([expect.objectContaining({ service: SERVICE, mock: 'force:return "degraded"', overrides: 1 })]);
    const detail = await client.get(`/api/services/${SERVICE}`);
    expect(detail.overrides).toEqual([{ url: rule, address: '0.0.0.0', enabled: true, parameters: { 'sayHello.mock': 'force:return "degraded"' } }]);

    const removed = await client.act('DELETE', `/api/services/${SERVICE}/mock`, { method: 'sayHello', confirm: true });
    expect(removed.plan.rules).toEqual([{ op: 'delete', node: expect.any(String), url: rule }]);
    expect(removed.plan.cli).toBe(`weft override rm --registry ${registry} --service org.acme.Greeter sayHello.mock`);
    await eventually(() => outcome(() => consumer.greeter.sayHello('ann')), (o) => /^ok: hello ann from [ab]$/.test(o));
    expect((await client.get(`/api/services/${SERVICE}`)).overrides).toEqual([]);

    // the audit trail has both, newest first, in memory and in the file
    const audit = await client.get('/api/audit');
    expect(audit.slice(0, 2).map((e: { action: string }) => e.action)).toEqual(['mock.remove', 'mock.set']);
    expect(audit[1]).toEqual({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      who: expect.stringMatching(/^127\.0\.0\.1 #[\w-]{8}$/),
      action: 'mock.set',
      service: SERVICE,
      rule: `write ${rule}`,
      zkCli: planned.plan.zkCli[0],
      cli: planned.plan.cli,
    });
    const lines = readFileSync(auditFile(), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { action: string });
    expect(lines.slice(-2).map((l) => l.action)).toEqual(['mock.set', 'mock.remove']);
  });

  it('a whole-service mock degrades every method; a second set merges into the same rule', async () => {
    await client.act('POST', `/api/services/${SERVICE}/mock`, { mock: 'force:return null', confirm: true });
    await eventually(() => outcome(() => consumer.greeter.sayHello('ann')), (o) => o === 'ok: null');
    const audited = (await client.get('/api/audit')).length;
    const again = await client.act('POST', `/api/services/${SERVICE}/mock`, { mock: 'force:return null', confirm: true });
    expect(again).toMatchObject({ applied: true, plan: { summary: expect.stringContaining('(already so: nothing to change)'), rules: [], zkCli: [] } });
    expect((await client.get('/api/audit')).length).toBe(audited);
    const merged = await client.act('POST', `/api/services/${SERVICE}/mock`, { method: 'count', mock: 'force:return 7', confirm: true });
    expect(merged.plan.rules.map((r: { op: string }) => r.op)).toEqual(['write', 'delete']);
    await eventually(() => outcome(() => consumer.greeter.count()), (o) => o === 'ok: 7');
    expect((await client.get(`/api/services/${SERVICE}`)).overrides).toHaveLength(1);
    await client.act('DELETE', `/api/services/${SERVICE}/mock`, { confirm: true });
    await client.act('DELETE', `/api/services/${SERVICE}/mock`, { method: 'count', confirm: true });
    await eventually(() => outcome(() => consumer.greeter.count()), (o) => o === 'ok: 42');
  });

  it('a malformed mock is 400 with the validator message and nothing is written; unknown method and service are 404 with the closest name', async () => {
    const bad = await client.call('POST', `/api/services/${SERVICE}/mock`, { method: 'count', mock: 'force:return {oops', confirm: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('rejected, nothing written: override rule for org.acme.Greeter (count.mock): mock=force:return {oops is not a valid mock expression: Expected ":" at position 5');
    const grammar = await client.call('POST', `/api/services/${SERVICE}/mock`, { mock: 'force:retrun null', confirm: true });
    expect(grammar.status).toBe(400);
    expect(grammar.body.error).toContain('is not a valid mock expression');
    expect(grammar.body.error).toContain('Expected [force:|fail:]');
    expect((await client.get(`/api/services/${SERVICE}`)).overrides).toEqual([]);

    const method = await client.call('POST', `/api/services/${SERVICE}/mock`, { method: 'sayHelo', mock: 'force:return null' });
    expect(method.status).toBe(404);
    expect(method.body.error).toBe(`unknown method sayHelo of ${SERVICE} (methods: count, sayHello); did you mean sayHello?`);
    const service = await client.call('POST', '/api/services/org.acme.Greter/mock', { mock: 'force:return null' });
    expect(service.status).toBe(404);
    expect(service.body.error).toBe(`unknown service org.acme.Greter: nothing is registered for it at ${registry}; did you mean org.acme.Greeter?`);
    const missing = await client.call('POST', `/api/services/${SERVICE}/mock`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('missing "mock"');
    const proto = await client.raw('POST', `/api/services/${SERVICE}/mock`, {
      headers: { cookie: client.cookie as string, 'x-csrf-token': client.csrf as string, 'content-type': 'application/json' },
      body: '{"__proto__": {"mock": "force:return 1", "confirm": true}}',
    });
    expect(proto.status).toBe(400);
    expect(proto.body.error).toContain('missing "mock"');
    const typed = await client.call('POST', `/api/services/${SERVICE}/mock`, { mock: 12 });
    expect(typed.status).toBe(400);
    expect(typed.body.error).toBe('"mock" must be a string (got number)');
    const nothing = await client.call('DELETE', `/api/services/${SERVICE}/mock`, { method: 'sayHello', confirm: true });
    expect(nothing.status).toBe(404);
    expect(nothing.body.error).toContain('no mock for sayHello is set');
  });

  it('preview answers the value the consumer would receive, or the parser message', async () => {
    // sayHello returns String: a String method receives the literal text itself (Dubbo's rule)
    expect(await client.act('POST', `/api/services/${SERVICE}/mock/preview`, { method: 'sayHello', mock: 'force:return {name: "ann", tags: [1, 2]}' })).toEqual({
      ok: true,
      mode: 'force',
      returns: 'String',
      value: '{name: "ann", tags: [1, 2]}',
    });
    expect(await client.act('POST', `/api/services/${SERVICE}/mock/preview`, { method: 'sayHello', mock: 'fail:throw' })).toEqual({
      ok: true,
      mode: 'fail',
      throws: 'RpcError: mocked exception for service degradation.',
    });
    const bad = await client.act('POST', `/api/services/${SERVICE}/mock/preview`, { method: 'count', mock: 'force:return {oops' });
    expect(bad.ok).toBe(false);
    expect(bad.error).toContain('is not a valid mock expression');
    expect((await client.get(`/api/services/${SERVICE}`)).overrides).toEqual([]);
  });
});

describe('mock values against the declared return types (weft.returns)', () => {
  const preview = (body: Record<string, unknown>) => client.act('POST', `/api/services/${SERVICE}/mock/preview`, body);

  it('preview realises the value to the method\'s return type, and refuses one that does not fit, naming method, type and value', async () => {
    expect(await preview({ method: 'count', mock: 'force:return 42' })).toEqual({ ok: true, mode: 'force', returns: 'Number', value: 42 });
    expect(await preview({ method: 'count', mock: 'fail:return "43"' })).toEqual({ ok: true, mode: 'fail', returns: 'Number', value: 43 });
    expect(await preview({ method: 'count', mock: 'force:return "abc"' })).toEqual({
      ok: false,
      error: 'the mock value "abc" does not fit count(), which returns Number: expected Number, got "abc".',
    });
    expect(await preview({ method: 'count', mock: 'force:return [1]' })).toEqual({
      ok: false,
      error: 'the mock value [1] does not fit count(), which returns Number: expected Number, got [1].',
    });
    // a mock for every method is checked against each of them
    expect(await preview({ mock: 'force:return abc' })).toEqual({
      ok: false,
      error: 'the mock value abc does not fit count(), which returns Number: expected Number, got "abc".',
    });
    expect(await preview({ mock: 'force:return 5' })).toEqual({ ok: true, mode: 'force', value: 5 });
    // throw mocks are not values: nothing to check
    expect(await preview({ method: 'count', mock: 'force:throw' })).toMatchObject({ ok: true, throws: expect.any(String) });
  });

  it('the mock action refuses a value that does not fit (400, nothing written) and applies one that does', async () => {
    const refused = await client.call('POST', `/api/services/${SERVICE}/mock`, { method: 'count', mock: 'force:return "abc"', confirm: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('rejected, nothing written: the mock value "abc" does not fit count(), which returns Number: expected Number, got "abc".');
    const everyMethod = await client.call('POST', `/api/services/${SERVICE}/mock`, { mock: 'force:return {a: 1}', confirm: true });
    expect(everyMethod.status).toBe(400);
    expect(everyMethod.body.error).toContain('does not fit count(), which returns Number');
    expect((await client.get(`/api/services/${SERVICE}`)).overrides).toEqual([]);

    const applied = await client.act('POST', `/api/services/${SERVICE}/mock`, { method: 'count', mock: 'force:return "43"', confirm: true });
    expect(applied.applied).toBe(true);
    // the consumer receives what the preview showed: the number 43
    await eventually(() => consumer.greeter.count(), (v) => v === 43);
    await client.act('DELETE', `/api/services/${SERVICE}/mock`, { method: 'count', confirm: true });
    await eventually(() => consumer.greeter.count(), (v) => v === 42);
  });

  it('classes, arrays and Java types registered by any provider are checked; type texts it cannot rebuild only by grammar', async () => {
    const session = await RegistrySession.open(URL.parse(registry), { root: app.root, timeout: 5000 });
    const users = URL.parse(
      'tri://127.0.0.1:1/org.acme.Users?interface=org.acme.Users&side=provider&category=providers&application=users&methods=find,ids,odd,touch&dynamic=false' +
        '&weft.returns=find:org.acme.User,ids:Array(java.long),odd:java.Future,touch:void',
    );
    try {
      await session.registry.register(users);
      const at = (body: Record<string, unknown>) => client.act('POST', '/api/services/org.acme.Users/mock/preview', body);
      expect((await client.get('/api/services/org.acme.Users')).methods).toEqual([
        { name: 'find', returns: 'org.acme.User' },
        { name: 'ids', returns: 'Array(java.long)' },
        { name: 'odd', returns: 'java.Future' },
        { name: 'touch', returns: 'void' },
      ]);
      // a void method: whatever the mock returns, the consumer receives undefined (no value in the answer)
      expect(await at({ method: 'touch', mock: 'force:return 42' })).toEqual({ ok: true, mode: 'force', returns: 'void' });
      expect(await at({ method: 'find', mock: 'force:return {name: "ann"}' })).toEqual({ ok: true, mode: 'force', returns: 'org.acme.User', value: { name: 'ann' } });
      expect(await at({ method: 'find', mock: 'force:return null' })).toEqual({ ok: true, mode: 'force', returns: 'org.acme.User', value: null });
      expect(await at({ method: 'find', mock: 'force:return "ann"' })).toEqual({
        ok: false,
        error: 'the mock value "ann" does not fit find(), which returns org.acme.User (an object of class org.acme.User, or null): expected org.acme.User, got "ann".',
      });
      expect(await at({ method: 'ids', mock: 'force:return [1, "2"]' })).toEqual({ ok: true, mode: 'force', returns: 'Array(java.long)', value: [1, 2] });
      expect(await at({ method: 'ids', mock: 'force:return [1, "x"]' })).toEqual({
        ok: false,
        error: expect.stringMatching(/^the mock value \[1, "x"\] does not fit ids\(\), which returns Array\(java\.long\): the value \[1\]: expected long, got "x"/),
      });
      // a type the console cannot rebuild is shown, and the value checked by the grammar only
      expect(await at({ method: 'odd', mock: 'force:return "anything"' })).toEqual({
        ok: true,
        mode: 'force',
        returns: 'java.Future',
        value: 'anything',
        note: 'not checked against java.Future: the console cannot rebuild that type',
      });
    } finally {
      await session.registry.unregister(users);
      await session.close();
    }
  });
});

describe('providers', () => {
  it('weight 0 drains a provider; disable stops every call to it; enable brings it back', async () => {
    const [a, b] = providers as [RunningProvider, RunningProvider];
    const drained = await client.act('POST', `/api/services/${SERVICE}/override`, { address: a.address, weight: 0, confirm: true });
    expect(drained.plan.rules).toEqual([{ op: 'write', node: expect.any(String), url: `override://${a.address}/${SERVICE}?category=configurators&dynamic=false&weight=0` }]);
    expect(drained.plan.cli).toBe(`weft override set --registry ${registry} --service ${SERVICE} --address ${a.address} weight=0`);
    await eventually(() => both(), (seen) => seen.size === 1 && seen.has('b'));
    const before = a.calls;
    await both();
    expect(a.calls).toBe(before);
    await client.act('POST', `/api/services/${SERVICE}/override`, { address: a.address, weight: 100, confirm: true });
    await eventually(() => both(), (seen) => seen.size === 2);

    const disabled = await client.act('POST', `/api/services/${SERVICE}/providers/disable`, { address: b.address, confirm: true });
    expect(disabled.plan.rules[0].url).toBe(`override://${b.address}/${SERVICE}?category=configurators&dynamic=false&disabled=true`);
    await eventually(() => both(), (seen) => seen.size === 1 && seen.has('a'));
    const detail = await client.get(`/api/services/${SERVICE}`);
    expect(detail.providers.map((p: { address: string; enabled: boolean }) => [p.address, p.enabled]).sort()).toEqual([[a.address, true], [b.address, false]].sort());
    expect((await client.get('/api/services'))[0].providers).toEqual({ total: 2, enabled: 1 });

    await client.act('POST', `/api/services/${SERVICE}/providers/enable`, { address: b.address, confirm: true });
    await eventually(() => both(), (seen) => seen.size === 2);
    expect((await client.get('/api/services'))[0].providers).toEqual({ total: 2, enabled: 2 });
  });

  it('an unknown provider address is 404 listing the providers; a bad number is 400', async () => {
    const unknown = await client.call('POST', `/api/services/${SERVICE}/providers/disable`, { address: '10.9.9.9:1' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain(`no provider of ${SERVICE} at 10.9.9.9:1 (providers: `);
    expect(unknown.body.error).toContain(providers[0]!.address);
    const weight = await client.call('POST', `/api/services/${SERVICE}/override`, { weight: -1 });
    expect(weight.status).toBe(400);
    expect(weight.body.error).toBe('"weight" must be a whole number ≥ 0 (got -1)');
    const none = await client.call('POST', `/api/services/${SERVICE}/override`, {});
    expect(none.status).toBe(400);
    const enabled = await client.call('POST', `/api/services/${SERVICE}/providers/enable`, { address: providers[0]!.address });
    expect(enabled.status).toBe(404);
    expect(enabled.body.error).toBe(`the provider ${providers[0]!.address} of ${SERVICE} is not disabled by an override rule; nothing to remove`);
    const routes = await client.call('DELETE', `/api/services/${SERVICE}/routes`, { kind: 'condition' });
    expect(routes.status).toBe(404);
    expect(routes.body.error).toBe(`no condition route of ${SERVICE} exists (routes: none)`);
  });

  it('a timeout override reaches the consumer', async () => {
    const set = await client.act('POST', `/api/services/${SERVICE}/override`, { method: 'sayHello', timeout: 1234, retries: 0, confirm: true });
    expect(set.plan.rules[0].url).toBe(`override://0.0.0.0/${SERVICE}?category=configurators&dynamic=false&sayHello.timeout=1234&sayHello.retries=0`);
    await eventually(() => consumer.app.getReferenceUrl(consumer.greeter)?.getParameter('sayHello.timeout'), (t) => t === '1234');
  });
});

describe('routes', () => {
  it('a condition route steers calls to one provider; DELETE removes it; a malformed rule is 400 with the router message; a tag rule goes to the config centre', async () => {
    const b = providers[1] as RunningProvider;
    const port = b.address.split(':')[1];
    const text = `method = sayHello => port = ${port}`;
    const added = await client.act('POST', `/api/services/${SERVICE}/routes`, { kind: 'condition', text, confirm: true });
    expect(added.plan.rules[0].url).toMatch(/^condition:\/\/0\.0\.0\.0\/org\.acme\.Greeter\?category=routers&dynamic=false&enabled=true&force=false&priority=0&router=condition&runtime=false&rule=/);
    expect(added.plan.cli).toBe(`weft route add --registry ${registry} --service ${SERVICE} '${text}'`);
    await eventually(() => both(), (seen) => seen.size === 1 && seen.has('b'));
    expect((await client.get(`/api/services/${SERVICE}`)).routes).toEqual([{ kind: 'condition', text, url: added.plan.rules[0].url }]);

    await client.act('DELETE', `/api/services/${SERVICE}/routes`, { kind: 'condition', confirm: true });
    await eventually(() => both(), (seen) => seen.size === 2);

    const bad = await client.call('POST', `/api/services/${SERVICE}/routes`, { kind: 'condition', text: 'method = => =>', confirm: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^rejected, nothing written: the rule "method = => =>": /);
    // A tag rule goes to the embedded config centre: a private file, planned with its ZooKeeper equivalent.
    const yaml = `tags:\n- name: blue\n  addresses: ["${(providers[0] as RunningProvider).address}"]\n`;
    const file = join(dir, 'dubbo', 'config', 'dubbo', 'provider-a.tag-router');
    const tag = await client.act('POST', `/api/services/${SERVICE}/routes`, { kind: 'tag', text: yaml, application: 'provider-a', confirm: true });
    expect(tag.plan.rules).toEqual([{ op: 'write', node: file, url: yaml }]);
    expect(tag.plan.zkCli).toEqual([`create /dubbo/config/dubbo/provider-a.tag-router '${yaml}'`]);
    expect(readFileSync(file, 'utf8')).toBe(yaml);
    const untag = await client.act('DELETE', `/api/services/${SERVICE}/routes`, { kind: 'tag', application: 'provider-a', confirm: true });
    expect(untag.plan.zkCli).toEqual(['delete /dubbo/config/dubbo/provider-a.tag-router']);
    expect(existsSync(file)).toBe(false);
    const kind = await client.call('POST', `/api/services/${SERVICE}/routes`, { kind: 'script', text: 'x' });
    expect(kind.status).toBe(400);
  });
});

describe('circuit breaker', () => {
  it('forcing it open refuses calls; auto removes the key', async () => {
    const forced = await client.act('POST', `/api/services/${SERVICE}/breaker`, { method: 'sayHello', state: 'open', confirm: true });
    expect(forced.plan.rules[0].url).toBe(`override://0.0.0.0/${SERVICE}?category=configurators&dynamic=false&sayHello.circuitbreaker.force=open`);
    await eventually(() => outcome(() => consumer.greeter.sayHello('ann')), (o) => o === 'circuit-open');
    await client.act('POST', `/api/services/${SERVICE}/breaker`, { method: 'sayHello', state: 'auto', confirm: true });
    await eventually(() => outcome(() => consumer.greeter.sayHello('ann')), (o) => /^ok: hello ann/.test(o));
    const bad = await client.call('POST', `/api/services/${SERVICE}/breaker`, { state: 'half' });
    expect(bad.status).toBe(400);
  });
});
