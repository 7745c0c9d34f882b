import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { defineService, WeftApplication } from '@weft/core';
import { createTestApp, RecordingLogger, sourceRegion, type TestApp } from '@weft/test-utils';

const here = dirname(fileURLToPath(import.meta.url));
const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(here, '..', 'META-INF', 'weft', 'weft.rpc.Filter.json'), 'utf8')) as Record<
  string,
  { activate?: { group?: string[]; order?: number } }
>;

const region = (name: string): string => sourceRegion(thisFile, name);

class InsufficientFunds extends Error {
  override name = 'InsufficientFunds';
}
class LedgerDbError extends Error {}
const Payments = defineService('org.acme.Payments', {
  charge: { args: [String], returns: String, throws: [InsufficientFunds] },
});

let testApp: TestApp | undefined;
let app: WeftApplication | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await app?.shutdown();
  testApp?.cleanup();
  app = undefined;
  testApp = undefined;
});

describe('README', () => {
  it('usage snippet runs: the declared error passes, the undeclared one is wrapped and logged', async () => {
    testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-exception']);
    const logger = new RecordingLogger();
    app = await WeftApplication.start({ root: testApp.root, name: 'shop', logger });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // #region usage
    await app.export(Payments, {
      charge(account: string) {
        if (account === 'empty') throw new InsufficientFunds(`account ${account} is empty`);
        throw new LedgerDbError('connection pool exhausted'); // a provider bug the consumer cannot handle
      },
    });
    const payments = await app.refer(Payments);
    await payments.charge('empty').catch((error) => console.log(error instanceof InsufficientFunds, error.message));
    // true account empty is empty
    await payments.charge('acme').catch((error) => console.log(error.name, error.message));
    // UndeclaredError LedgerDbError: connection pool exhausted
    // #endregion usage

    expect(log.mock.calls).toEqual([
      [true, 'account empty is empty'],
      ['UndeclaredError', 'LedgerDbError: connection pool exhausted'],
    ]);
    expect(logger.of('warn')).toEqual([
      'Undeclared error from org.acme.Payments.charge() called by an unknown consumer: LedgerDbError: connection pool exhausted ' +
        '(the consumer receives an UndeclaredError; declare LedgerDbError in the method\'s "throws" to pass it through)',
    ]);
  });

  it('shows the usage snippet verbatim, and the logged line', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
    expect(readme.replace(/\n/g, ' ')).toContain(
      'LedgerDbError: connection pool exhausted (the consumer receives an UndeclaredError; declare LedgerDbError in the method\'s "throws" to pass it through)',
    );
  });

  it('describes the extension as the manifest declares it', () => {
    expect(manifest['exception']?.activate).toEqual({ group: ['provider'] });
    expect(readme).toContain('| `weft.rpc.Filter` | `exception` | group `provider` (every export), order `0` |');
  });
});
