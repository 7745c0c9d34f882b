import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { defineService, RpcContext } from '@weft/core';
import { ContextKeys, RESERVED_ATTACHMENT_KEYS, RESERVED_ATTACHMENT_PREFIXES } from '@weft/filter-context';

import { startApp, type Started } from './support/shop.js';
import { sourceRegion } from '@weft/test-utils';

const here = dirname(fileURLToPath(import.meta.url));
const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');

const region = (name: string): string => sourceRegion(thisFile, name);

const Stock = defineService('org.acme.Stock', { reserve: { args: [String], returns: String } });
const Orders = defineService('org.acme.Orders', { place: { args: [String], returns: String } });

let started: Started | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await started?.close();
  started = undefined;
});

describe('README', () => {
  it('usage snippet runs: the nested call sees the caller and the passed-through traceId', async () => {
    started = await startApp();
    const { app } = started;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // #region usage
    await app.export(Stock, {
      async reserve(item: string) {
        const ctx = RpcContext.current();
        return `${item} reserved for ${ctx?.remoteApplication} (trace ${ctx?.getAttachment('traceId')})`;
      },
    });
    const stock = await app.refer(Stock);
    await app.export(Orders, {
      // traceId reaches Stock without being passed by hand; Stock's deadline is no later than this call's.
      place: (item: string) => stock.reserve(item),
    });
    const orders = await app.refer(Orders);
    console.log(await orders.$call('place', ['apple'], { attachments: { traceId: 't-42' } }));
    // apple reserved for shop (trace t-42)
    // #endregion usage

    expect(log.mock.calls).toEqual([['apple reserved for shop (trace t-42)']]);
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
  });

  it('lists both filters, the validator, every key and every reserved key', () => {
    expect(readme).toContain('| `weft.rpc.Filter` | `context` |');
    expect(readme).toContain('| `weft.rpc.Filter` | `consumercontext` |');
    expect(readme).toContain('| `weft.config.ConfigValidator` | `timeout-countdown` |');
    for (const key of Object.values(ContextKeys)) expect(readme).toContain(`| \`${key}\` |`);
    for (const key of RESERVED_ATTACHMENT_KEYS) expect(readme).toContain(`\`${key}\``);
    for (const prefix of RESERVED_ATTACHMENT_PREFIXES) expect(readme).toContain(`\`${prefix}\``);
  });
});
