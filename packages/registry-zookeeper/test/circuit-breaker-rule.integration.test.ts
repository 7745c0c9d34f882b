// A circuit breaker rule pushed at runtime through ZooKeeper, end to end: a provider process over tri registered in
// a real ZooKeeper, a consumer discovering it there; a YAML configurator rule (as dubbo-admin writes it) adds an
// error-ratio breaker → the provider's failures open it and the fail mock answers without reaching it; the provider
// recovers → a half-open probe closes it; a rule that forces it open; deleting the rule → the calls reach the provider again.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, WeftApplication } from '@weft/core';
import { ZookeeperClient } from '@weft/registry-zookeeper';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

import { waitFor } from './support/harness.js';
import { ZookeeperServer } from './support/zookeeper-server.js';

const SERVICE = 'org.acme.Ledger';
const Ledger = defineService(SERVICE, {
  book: { args: [String], returns: String },
  setFailing: { args: [Boolean], returns: Boolean },
  calls: { args: [], returns: Number },
});

const PROVIDER = `
import { defineService, WeftApplication } from '@weft/core';
const Ledger = defineService('${SERVICE}', {
  book: { args: [String], returns: String },
  setFailing: { args: [Boolean], returns: Boolean },
  calls: { args: [], returns: Number },
});
let failing = false;
let calls = 0;
const app = await WeftApplication.start({ root: process.cwd(), name: 'ledger-provider', registry: process.argv[3] });
await app.export(Ledger, {
  book: (entry) => {
    calls++;
    if (failing) throw new Error('ledger store unavailable');
    return 'booked ' + entry;
  },
  setFailing: (on) => (failing = on),
  calls: () => calls,
}, { protocol: 'tri', host: '127.0.0.1', port: Number(process.argv[2]) });
console.log('ready');
`;

const RULE_PATH = `/dubbo/config/dubbo/${SERVICE}::.configurators`;
const rule = (parameters: string): string =>
  `configVersion: v3.0\nscope: service\nkey: ${SERVICE}\nenabled: true\nconfigs:\n  - side: consumer\n    addresses: ["0.0.0.0"]\n    parameters:\n${parameters}`;

let zk: ZookeeperServer;
let client: ZookeeperClient;
let registryUrl: string;
let testApp: TestApp;
let provider: ChildProcess | undefined;

beforeAll(async () => {
  zk = await ZookeeperServer.start();
  client = new ZookeeperClient({ connectString: zk.connectString, connectionTimeout: 10_000 });
  await client.waitConnected();
  registryUrl = `${zk.url}?timeout=5000&session=10000`;
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/protocol-triple', '@weft/registry-zookeeper', '@weft/filter-circuitbreaker'], {
    prefix: 'weft-zk-breaker',
  });
  writeFileSync(join(testApp.root, 'provider.mjs'), PROVIDER);
  const child = spawn(process.execPath, ['provider.mjs', String(await freePort()), registryUrl], { cwd: testApp.root, stdio: ['ignore', 'pipe', 'pipe'] });
  provider = child;
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`provider exited with ${code}: ${out}`)));
    setTimeout(() => reject(new Error(`provider not ready after 20 s: ${out}`)), 20_000);
  });
}, 60_000);

afterAll(async () => {
  if (provider !== undefined && provider.exitCode === null) provider.kill('SIGKILL');
  await client?.close();
  await zk?.dispose();
  testApp?.cleanup();
});

describe('a breaker rule pushed through ZooKeeper (YAML configurator) reaches a tri consumer', () => {
  it('adds an error-ratio breaker (fail mock answers once it opens), recovers through a half-open probe, forces it open, and deleting the rule closes it', async () => {
    const logger = new RecordingLogger();
    const app = await WeftApplication.start({ root: testApp.root, name: 'ledger-consumer', registry: registryUrl, logger });
    try {
      const ledger = await app.refer(Ledger, { retries: 0, timeout: 3000, mock: 'fail:return "queued"' });
      expect(await ledger.book('a')).toBe('booked a');

      // 1. An error-ratio rule, pushed at runtime: the next calls obey it.
      await client.writeData(
        RULE_PATH,
        rule(
          '      book.circuitbreaker: error-ratio\n      book.circuitbreaker.threshold: 0.5\n      book.circuitbreaker.min-requests: 3\n' +
            '      book.circuitbreaker.window: 5000\n      book.circuitbreaker.open-duration: 1500\n      book.circuitbreaker.biz-errors: true\n'
        )
      );
      await waitFor('the rule to reach the consumer', () => app.getReferenceUrl(ledger)?.getParameter('book.circuitbreaker') === 'error-ratio');
      await ledger.setFailing(true);
      // Business errors count for the breaker (biz-errors) but are the provider's answer: the mock does not hide them.
      // Three of them reach the minimum of 3 calls at a ratio of 1 > 0.5: the breaker opens.
      await waitFor('the breaker to open and the fail mock to answer', async () => {
        try {
          return (await ledger.book('f')) === 'queued';
        } catch {
          return false;
        }
      });
      const reached = await ledger.calls();
      const started = performance.now();
      for (let i = 0; i < 100; i++) expect(await ledger.book('x')).toBe('queued');
      expect((performance.now() - started) / 100).toBeLessThan(1);
      expect(await ledger.calls()).toBe(reached);
      expect(logger.of('warn').some((m) => m.startsWith(`circuit breaker ${SERVICE}#book: closed → open (tripped: error-ratio`))).toBe(true);

      // 2. The provider recovers: once the open duration ends, a half-open probe reaches it and closes the breaker.
      await ledger.setFailing(false);
      await waitFor('a half-open probe to close the breaker', async () => (await ledger.book('p')) === 'booked p');
      const transitions = logger.of('warn').filter((m) => m.startsWith(`circuit breaker ${SERVICE}#book: `)).map((m) => /: (\S+ → \S+) /.exec(m)?.[1]);
      expect(transitions).toEqual(['closed → open', 'open → half-open', 'half-open → closed']);
      expect(await ledger.book('q')).toBe('booked q');

      // 3. A rule that forces the breaker open keeps the calls away from the recovered provider.
      await client.setData(RULE_PATH, rule('      book.circuitbreaker: error-ratio\n      book.circuitbreaker.force: open\n'));
      await waitFor('the forced rule', () => app.getReferenceUrl(ledger)?.getParameter('book.circuitbreaker.force') === 'open');
      const before = await ledger.calls();
      for (let i = 0; i < 20; i++) expect(await ledger.book('y')).toBe('queued');
      expect(await ledger.calls()).toBe(before);
      expect(logger.of('warn').filter((m) => m.includes('forced-open'))).toEqual([
        `circuit breaker ${SERVICE}#book: closed → forced-open (the rule changed; rule: error-ratio > 0.5 over 1000 ms (min 5 calls), open 5000 ms).`,
      ]);

      // 4. Deleting the rule removes the breaker: the calls reach the provider again.
      await client.delete(RULE_PATH);
      await waitFor('real answers again', async () => (await ledger.book('z')) === 'booked z');
      expect(await ledger.calls()).toBe(before + 1);
    } finally {
      await app.shutdown({ timeout: 1000 });
    }
  }, 40_000);
});
