// The README's usage snippet runs as written (a region of this file, shown verbatim in the README), its diff adds
// exactly the snippet's lines, and the README documents the extension, every URL key and the error code.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { defineService, WeftApplication } from '@weft/core';
import { circuitBreakersOf, CircuitBreakerKeys } from '@weft/filter-circuitbreaker';
import { createTestApp, sourceRegion, type TestApp } from '@weft/test-utils';

const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
const region = (name: string): string => sourceRegion(thisFile, name);

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
/** The provider is down for the first five calls. */
let calls = 0;
const impl = {
  sayHello: (name: string) => {
    if (++calls <= 5) throw new Error('database unavailable');
    return `hello ${name}`;
  },
};

let testApp: TestApp;
beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/filter-circuitbreaker'], { prefix: 'weft-circuitbreaker-readme' });
});
afterAll(() => testApp.cleanup());
afterEach(() => vi.restoreAllMocks());

describe('README', () => {
  it('usage snippet runs: five failures open the breaker, the fail mock answers without calling the provider', async () => {
    const root = testApp.root;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const warn = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // #region usage
    const app = await WeftApplication.start({ root, name: 'shop' });
    await app.export(Greeter, impl);
    const greeter = await app.refer(Greeter, {
      mock: 'fail:return "hello from the fallback"', // what callers get while the breaker is open
      parameters: { circuitbreaker: 'error-ratio', 'circuitbreaker.threshold': 0.5 }, // open above 50 % errors
    });
    circuitBreakersOf(app).onStateChange((e) => console.log(`${e.resource}: ${e.from} → ${e.to}`));
    for (let i = 0; i < 5; i++) await greeter.sayHello('ann').catch(() => undefined); // 5 errors of 5 calls
    console.log(await greeter.sayHello('bob')); // 'hello from the fallback': the provider is not called
    await app.shutdown();
    // #endregion usage
    expect(log.mock.calls.map((c) => String(c[0])).filter((line) => !line.startsWith('[weft] exported'))).toEqual(['org.acme.Greeter#sayHello: closed → open', 'hello from the fallback']);
    expect(calls).toBe(5);
    expect(warn.mock.calls.some((c) => String(c[0]).includes('circuit breaker org.acme.Greeter#sayHello: closed → open (tripped: error-ratio 1 over 5 calls'))).toBe(true);
  });

  it('shows the snippet verbatim, and the diff adds exactly its refer lines', () => {
    expect(readme).toContain(region('usage'));
    const added = readme
      .split('\n')
      .filter((line) => line.startsWith('+ '))
      .map((line) => line.slice(2).trim());
    for (const line of added) expect(region('usage')).toContain(line);
    expect(added.length).toBeGreaterThan(2);
  });

  it('documents every URL key, the extensions and the circuit-open code', () => {
    for (const key of Object.values(CircuitBreakerKeys)) expect(readme).toContain(`| \`${key}\``);
    expect(readme).toContain('`weft.rpc.Filter` | `circuitbreaker`');
    expect(readme).toContain('`weft.config.ConfigValidator` | `circuitbreaker`');
    expect(readme).toContain('`circuit-open`');
    expect(readme).toContain('## Differences from Dubbo and Sentinel');
  });
});
