// The browser scenario, run against each registry: every step through the console's pages, checked on the
// running Weft applications (what the consumer's next calls return, which provider answers).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { expect, it } from 'vitest';

import { eventually, GREETER, textOf, type ConsoleWorld } from './console-world.ts';

/** Options of {@link consoleScenario}. */
export interface ScenarioOptions {
  /** Whether this run saves the docs screenshots (WEFT_SCREENSHOTS=1). */
  readonly screenshots: boolean;
}

/** Who answers the consumer's next `count` calls of `sayHello`. */
async function answers(world: ConsoleWorld, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(await world.greeter.sayHello('ann'));
  return out;
}

/** A page of another origin (another port of 127.0.0.1), for the CSRF attempt. */
function evilOrigin(): Promise<Server> {
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>evil</title><p>evil</p>'));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Registers the scenario's tests; `world()` is the started world of the file. */
export function consoleScenario(world: () => ConsoleWorld, options: ScenarioOptions): void {
  it('refuses the API without a session, and the login page refuses a wrong token', async () => {
    const { admin, page } = world();
    const anonymous = await fetch(`${admin.url}/api/services`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: string }).error).toMatch(/log in|session/i);

    await page.goto(admin.url);
    await page.getByRole('heading', { name: 'Weft admin', level: 1 }).waitFor();
    if (options.screenshots) await world().screenshot('login');
    await page.getByLabel('Token').fill('not-the-token');
    await page.getByRole('button', { name: 'Log in' }).click();
    expect(await textOf(page.getByRole('alert').filter({ hasText: /./ }), /token/i)).toMatch(/token/i);
    await world().logIn();
  });

  it('finds the service by a part of its name, with its health at a glance', async () => {
    const { page } = world();
    const list = page.getByRole('table', { name: 'Services' });
    await textOf(list, /org\.acme\.Inventory/);
    expect(await list.locator('tbody tr').count()).toBe(2);
    if (options.screenshots) {
      await textOf(list.getByRole('row').filter({ hasText: GREETER }).getByRole('cell').nth(5), /^\d+(\.\d+)? ms$/, 15_000);
      await world().screenshot('services');
    }
    const search = page.getByLabel('Search services');
    await search.fill('acme.Gree');
    await eventually(() => list.locator('tbody tr').count(), (n) => n === 1, 5000, 'the list filtered to one service');
    const row = list.getByRole('row').filter({ hasText: GREETER });
    await textOf(row, /healthy/);
    const cells = (await row.getByRole('cell').allInnerTexts()).map((c) => c.trim());
    expect(cells[0]).toBe('healthy'); // the service name is the row header; then health
    expect(cells[1]).toBe('2/2'); // providers up
    expect(cells[2]).toBe('1'); // consumers
    await textOf(row.getByRole('cell').nth(5), /^\d+(\.\d+)? ms$/, 15_000); // p99, once the consumer's metrics were scraped

    await search.fill('org.nowhere');
    await textOf(page.getByRole('table', { name: 'Services' }), /No service matches "org\.nowhere"/);
    await search.fill('');
    await page.getByRole('link', { name: GREETER }).click();
    await page.getByRole('heading', { name: GREETER, level: 1 }).waitFor();

    // A mistyped service in the address bar: the page says so, with the closest name.
    await page.goto(`${world().admin.url}/#/services/org.acme.Greter`);
    expect(await textOf(page.getByRole('alert').filter({ hasText: /./ }).first(), /Greter/)).toContain(GREETER);
    expect(await page.getByRole('form', { name: 'Mock' }).count()).toBe(0); // nothing to act on
    await page.getByRole('link', { name: 'Services', exact: true }).first().click();
    await page.getByRole('link', { name: GREETER }).click();
    await page.getByRole('heading', { name: GREETER, level: 1 }).waitFor();
  });

  it('refuses a bad mock expression in the form, with the parser\'s message, and writes nothing', async () => {
    const w = world();
    await w.openGreeter();
    const form = w.page.getByRole('form', { name: 'Mock' });
    await form.getByLabel('Method').selectOption('sayHello');
    const expression = form.getByLabel('Mock expression');
    await expression.fill('return {name: ');
    const refusal = form.getByRole('alert');
    const message = await textOf(refusal, /./);
    // The server's own answer to the same expression: the form shows the parser's message verbatim.
    const preview = await w.page.evaluate(async (service) => {
      const session = (await (await fetch('/api/session')).json()) as { csrf: string };
      const answer = await fetch(`/api/services/${encodeURIComponent(service)}/mock/preview`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf }, body: JSON.stringify({ method: 'sayHello', mock: 'force:return {name: ' }) });
      return (await answer.json()) as { ok: boolean; error?: string };
    }, GREETER);
    expect(preview.ok).toBe(false);
    expect(message).toBe(preview.error);
    expect(await expression.getAttribute('aria-invalid')).toBe('true');

    await form.getByRole('button', { name: 'Push mock' }).click();
    await textOf(refusal, /./);
    expect(await w.page.getByRole('dialog', { name: 'Confirm change' }).isVisible()).toBe(false);
    expect(await w.greeter.sayHello('bob')).toMatch(/^hello bob from [ab]$/);

    // checked against the registered return type as you type: count() returns Number
    expect(await form.getByLabel('Method').locator('option[value="count"]').innerText()).toBe('count(): Number');
    await form.getByLabel('Method').selectOption('count');
    await expression.fill('return "abc"');
    expect(await textOf(refusal, /does not fit/)).toBe('the mock value "abc" does not fit count(), which returns Number: expected Number, got "abc".');
    expect(await expression.getAttribute('aria-invalid')).toBe('true');
    await expression.fill('return "42"');
    await textOf(form.locator('output.preview'), /^42$/);
    expect(await expression.getAttribute('aria-invalid')).toBeNull();
    await form.getByLabel('Method').selectOption('sayHello');
  });

  it('a force mock pushed from the form answers the consumer\'s next calls, and the chart shows the mock answers', async () => {
    const w = world();
    const form = w.page.getByRole('form', { name: 'Mock' });
    await form.getByLabel('Method').selectOption('sayHello');
    await form.getByRole('radio', { name: /^force/ }).check();
    await form.getByLabel('Mock expression').fill('return "degraded"');
    await textOf(form.locator('output.preview'), /^"degraded"$/);
    expect(await form.getByLabel('Mock expression').getAttribute('aria-invalid')).toBeNull();
    await form.getByRole('button', { name: 'Push mock' }).click();
    const plan = await w.applyPlan(options.screenshots ? 'plan' : undefined);
    expect(plan.summary).toContain(GREETER);
    expect(plan.zkCli).toMatch(/^create \/dubbo\/org\.acme\.Greeter\/configurators\/override%3A%2F%2F/m);
    expect(plan.cli).toMatch(/^weft override set --registry \S+ --service org\.acme\.Greeter /);
    expect(plan.cli).toContain('sayHello.mock=force:return');

    const before = w.providers.map((p) => p.calls.sayHello);
    await eventually(() => w.greeter.sayHello('ann'), (answer) => answer === 'degraded', 10_000, 'the force mock reaching the consumer');
    expect(await answers(w, 5)).toEqual(Array(5).fill('degraded'));
    await expect(w.greeter.count()).resolves.toBe(42); // the other method still reaches a provider
    const during = w.providers.map((p) => p.calls.sayHello);
    // Keep calling while the console scrapes the consumer's metrics: the mock chart rises above zero.
    let calling = true;
    const load = (async () => {
      while (calling) {
        await w.greeter.sayHello('ann');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      const chart = w.page.getByRole('figure', { name: 'Mock answers per second' });
      await eventually(async () => Number(await chart.getByRole('status', { name: 'force' }).getAttribute('data-value')), (value) => value > 0, 15_000, 'force mock answers in the chart');
      expect(await w.page.getByRole('table', { name: 'Overrides' }).innerText()).toContain('sayHello.mock=force:return "degraded"');
      expect(await w.page.getByLabel('Summary').innerText()).toBe('degraded 2 of 2 providers enabled · 1 consumer · 2 methods · sayHello.mock=force:return "degraded"');
      if (options.screenshots) await w.screenshot('service');
    } finally {
      calling = false;
      await load;
    }
    // No provider answered sayHello while it was force-mocked.
    expect(w.providers.map((p) => p.calls.sayHello)).toEqual(during);
    expect(during).toEqual(before);
  });

  it('removing the mock brings the real answers back', async () => {
    const w = world();
    const form = w.page.getByRole('form', { name: 'Mock' });
    await form.getByLabel('Method').selectOption('sayHello');
    await form.getByRole('button', { name: 'Remove mock' }).click();
    const plan = await w.applyPlan();
    expect(plan.cli).toContain('weft override');
    await eventually(() => w.greeter.sayHello('ann'), (answer) => /^hello ann from [ab]$/.test(answer), 10_000, 'real answers after the mock was removed');
    const overrides = w.page.getByRole('table', { name: 'Overrides' });
    await eventually(() => overrides.innerText(), (text) => !text.includes('sayHello.mock'), 10_000, 'the mock gone from the overrides');
  });

  it('a weight of 0 drains a provider: every call goes to the other one', async () => {
    const w = world();
    const [drained, other] = w.providers as [ConsoleWorld['providers'][number], ConsoleWorld['providers'][number]];
    await w.page.getByRole('button', { name: `Drain ${drained.address}` }).click();
    const plan = await w.applyPlan();
    expect(plan.cli).toContain('weight=0');
    // The weight column shows the weight in force: the override's, next to the registered one.
    await textOf(w.page.getByRole('table', { name: 'Providers' }).getByRole('row').filter({ hasText: drained.address }).getByRole('cell').nth(2), /^0 \(override; registered 100\)$/);
    await eventually(() => answers(w, 20), (all) => all.every((a) => a === `hello ann from ${other.label}`), 10_000, 'calls going to the other provider only');
    const before = drained.calls.sayHello;
    expect(await answers(w, 30)).toEqual(Array(30).fill(`hello ann from ${other.label}`));
    expect(drained.calls.sayHello).toBe(before);
  });

  it('disable takes a provider out of the consumers\' lists, enable brings it back', async () => {
    const w = world();
    const [drained, other] = w.providers as [ConsoleWorld['providers'][number], ConsoleWorld['providers'][number]];
    await w.page.getByRole('button', { name: `Disable ${other.address}` }).click();
    await w.applyPlan();
    await textOf(w.page.getByRole('table', { name: 'Providers' }).getByRole('row').filter({ hasText: other.address }), /disabled/);
    // The drained provider is the only one left: weight 0 does not matter when there is no other choice.
    await eventually(() => answers(w, 10), (all) => all.every((a) => a === `hello ann from ${drained.label}`), 10_000, 'calls going to the drained provider, the only one enabled');
    await w.page.getByRole('button', { name: `Enable ${other.address}` }).click();
    await w.applyPlan();
    await eventually(() => answers(w, 10), (all) => all.every((a) => a === `hello ann from ${other.label}`), 10_000, 'calls back on the enabled provider');
  });

  it('the route editor checks a rule as you type with the router\'s message, and writes nothing until applied', async () => {
    const w = world();
    const form = w.page.getByRole('form', { name: 'Routing rule' });
    await form.getByLabel('Kind', { exact: true }).selectOption('condition');
    const rule = form.getByLabel('Rule', { exact: true });
    await rule.fill('host == 10.20.153.5 => false');
    expect(await textOf(form.getByRole('alert'), /Illegal route rule/)).toContain("The error char '==' at index 5");
    expect(await rule.getAttribute('aria-invalid')).toBe('true');
    await rule.fill('method = count => host != 10.9.9.9');
    await textOf(form.getByRole('status'), /^The rule is valid\.$/);
    expect(await rule.getAttribute('aria-invalid')).toBeNull();
    expect(await form.getByRole('alert').count()).toBe(0); // the (empty) alert is hidden
    expect(await w.page.getByRole('table', { name: 'Routes' }).innerText()).toContain('No routing rule.');
  });

  it('a plan that is cancelled writes nothing', async () => {
    const w = world();
    const form = w.page.getByRole('form', { name: 'Timeout, retries, weight' });
    await form.getByLabel('Timeout (ms)').fill('1234');
    await form.getByRole('button', { name: 'Plan override' }).click();
    const dialog = w.page.getByRole('dialog', { name: 'Confirm change' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('weft CLI command').innerText()).toContain('timeout=1234');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await textOf(w.page.getByRole('status').filter({ hasText: 'Cancelled' }), /^Cancelled: /);
    await form.getByLabel('Timeout (ms)').fill('');
    const overrides = await w.page.evaluate(async (service) => ((await (await fetch(`/api/services/${encodeURIComponent(service)}`)).json()) as { overrides: { parameters: Record<string, string> }[] }).overrides, GREETER);
    expect(overrides.map((o) => o.parameters['timeout'])).toEqual(overrides.map(() => undefined));
  });

  it('forcing the circuit breaker open refuses the consumer\'s calls and shows in the chart; auto gives them back', async () => {
    const w = world();
    const form = w.page.getByRole('form', { name: 'Circuit breaker' });
    await form.getByLabel('Breaker state').selectOption('open');
    await form.getByLabel('Method').selectOption('sayHello');
    await form.getByRole('button', { name: 'Plan breaker change' }).click();
    const plan = await w.applyPlan();
    expect(plan.cli).toContain('sayHello.circuitbreaker.force=open');
    await eventually(
      () => w.greeter.sayHello('ann').then(() => 'answered', (error: { code?: string }) => error.code ?? String(error)),
      (outcome) => outcome === 'circuit-open',
      10_000,
      'the breaker refusing sayHello',
    );
    await expect(w.greeter.count()).resolves.toBe(42);
    await textOf(w.page.getByRole('figure', { name: 'Breaker state' }).getByRole('status', { name: 'Breaker state now' }), /^forced-open$/, 15_000);

    await form.getByLabel('Breaker state').selectOption('auto');
    await form.getByRole('button', { name: 'Plan breaker change' }).click();
    await w.applyPlan();
    await eventually(() => w.greeter.sayHello('ann').catch((error: { code?: string }) => error.code ?? String(error)), (answer) => /^hello ann from [ab]$/.test(answer), 10_000, 'real answers with the breaker on auto');
  });

  it('a tag rule sends the tagged calls to the canary, and removing it ends the canary', async () => {
    const w = world();
    const [drained, canary] = w.providers as [ConsoleWorld['providers'][number], ConsoleWorld['providers'][number]];
    const form = w.page.getByRole('form', { name: 'Routing rule' });
    await form.getByLabel('Kind', { exact: true }).selectOption('tag');
    await form.getByLabel('Provider application').selectOption(`greeter-${canary.label}`);
    await form.getByLabel('Rule', { exact: true }).fill(`tags:\n  - name: gray\n    addresses: ["${canary.address}"]`);
    const tagged = async (): Promise<string[]> => {
      const out: string[] = [];
      for (let i = 0; i < 10; i++) out.push(await w.greeter.$call('sayHello', ['ann'], { attachments: { 'dubbo.tag': 'gray' } }));
      return out;
    };
    await textOf(form.getByRole('status'), /^The rule is valid\.$/);
    await form.getByRole('button', { name: 'Add route' }).click();
    const plan = await w.applyPlan();
    expect(plan.cli).toMatch(/^weft route put --registry (zookeeper|embedded):\/\/\S+ /);
    expect(plan.cli).toContain(`--kind tag --key greeter-${canary.label}`);
    expect(plan.zkCli).toContain(`/dubbo/config/dubbo/greeter-${canary.label}.tag-router`);
    // Tagged calls reach the canary only; untagged ones never do (the drained provider is the only untagged one).
    await eventually(tagged, (all) => all.every((a) => a === `hello ann from ${canary.label}`), 10_000, 'tagged calls on the canary');
    await eventually(() => answers(w, 10), (all) => all.every((a) => a === `hello ann from ${drained.label}`), 10_000, 'untagged calls off the canary');
    await textOf(w.page.getByRole('table', { name: 'Routes' }), /tag\s+tags:/);

    await form.getByRole('button', { name: 'Remove route' }).click();
    await w.applyPlan();
    await eventually(() => answers(w, 10), (all) => all.every((a) => a === `hello ann from ${canary.label}`), 10_000, 'untagged calls back on the undrained provider');
    await textOf(w.page.getByRole('table', { name: 'Routes' }), /No routing rule\./);
  });

  it('refuses a CSRF attempt: a mutating call without the session\'s token, or from another origin', async () => {
    const w = world();
    // Same page, session cookie sent, no x-csrf-token header.
    const noToken = await w.page.evaluate(async (service) => {
      const answer = await fetch(`/api/services/${encodeURIComponent(service)}/mock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mock: 'force:return null', confirm: true }) });
      return { status: answer.status, body: (await answer.json()) as { error: string } };
    }, GREETER);
    expect(noToken.status).toBe(403);
    expect(noToken.body.error).toMatch(/CSRF/);

    // The session's token, but another Origin (a request made outside the browser's same-origin rules).
    const csrf = await w.page.evaluate(async () => ((await (await fetch('/api/session')).json()) as { csrf: string }).csrf);
    const otherOrigin = await w.context.request.post(`${w.admin.url}/api/services/${encodeURIComponent(GREETER)}/mock`, {
      headers: { origin: 'http://evil.example', 'x-csrf-token': csrf, 'content-type': 'application/json' },
      data: JSON.stringify({ mock: 'force:return null', confirm: true }),
    });
    expect(otherOrigin.status()).toBe(403);
    expect(((await otherOrigin.json()) as { error: string }).error).toMatch(/CSRF/);

    // A page of another origin (same site: the cookie is sent) posting to the console.
    const evil = await evilOrigin();
    const attacker = await w.context.newPage();
    try {
      await attacker.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const statuses: number[] = [];
      attacker.on('response', (response) => {
        if (response.url().startsWith(w.admin.url)) statuses.push(response.status());
      });
      await attacker.evaluate(async (url) => {
        await fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ mock: 'force:return null', confirm: true }) }).catch(() => undefined);
      }, `${w.admin.url}/api/services/${encodeURIComponent(GREETER)}/mock`);
      await eventually(() => statuses.length, (n) => n > 0, 5000, 'the answer to the cross-origin request');
      expect(statuses[0]).toBeGreaterThanOrEqual(403);
      expect(statuses[0]).toBeLessThan(500);
    } finally {
      await attacker.close();
      await new Promise((resolve) => evil.close(resolve));
    }
    // Nothing was written: the consumer still gets real answers, no mock is listed.
    expect(await w.greeter.sayHello('eve')).toMatch(/^hello eve from [ab]$/);
    const services = await w.page.evaluate(async () => (await (await fetch('/api/services')).json()) as { service: string; mock: string | null }[]);
    expect(services.find((s) => s.service === GREETER)?.mock).toBeNull();
  });

  it('the audit page lists what was applied, newest first', async () => {
    const w = world();
    await w.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
    await w.page.getByRole('heading', { name: 'Audit', level: 1 }).waitFor();
    const table = w.page.getByRole('table', { name: 'Audit log' });
    await textOf(table, /mock/);
    const rows = table.locator('tbody tr');
    const actions = await table.locator('tbody tr td:nth-child(3)').allInnerTexts();
    const routes = ['route.remove', 'route.set'];
    expect(actions.map((a) => a.trim())).toEqual([...routes, 'breaker.set', 'breaker.set', 'provider.enable', 'provider.disable', 'override.set', 'mock.remove', 'mock.set']);
    expect(await rows.nth(routes.length + 6).innerText()).toContain('force:return');
    expect(await rows.nth(routes.length + 4).innerText()).toContain('weight=0');
    expect(await rows.nth(routes.length + 1).innerText()).toContain('sayHello.circuitbreaker.force=open');
    if (options.screenshots) await w.screenshot('audit');
  });

  it('logging out ends the session: the login page again, and the API refuses the old cookie', async () => {
    const w = world();
    await w.page.getByRole('button', { name: 'Log out' }).click();
    await w.page.getByLabel('Token').waitFor();
    expect(await w.page.evaluate(async () => (await fetch('/api/services')).status)).toBe(401);
    await w.page.goto(`${w.admin.url}/#/audit`);
    await w.page.getByLabel('Token').waitFor();
    expect(await w.page.getByRole('heading', { name: 'Audit' }).count()).toBe(0);
  });

  it('no page raised a script error or broke the Content-Security-Policy', () => {
    expect(world().problems).toEqual([]);
  });
}
