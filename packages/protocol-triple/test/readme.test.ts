// The README cannot rot: its usage snippet runs here, and its tables match the keys, defaults and manifest.
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { defineService, firstExternalIpv4 } from '@weft/core';
import { TripleDefaults, TripleKeys } from '@weft/protocol-triple';
import { freePort, sourceRegion } from '@weft/test-utils';

import { Harness } from './support/harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(here, '..', 'META-INF', 'weft', 'weft.rpc.Protocol.json'), 'utf8')) as Record<
  string,
  { module?: string; export?: string; wrapper?: { order?: number; matches?: string[] } }
>;

const region = (name: string): string => sourceRegion(thisFile, name);

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });

const harness = new Harness();
afterEach(async () => {
  vi.restoreAllMocks();
  await harness.close();
});

describe('README', () => {
  it('usage snippet runs: a consumer application calls a provider application over tri', async () => {
    const provider = await harness.start('shop-provider');
    const consumer = await harness.start('shop');
    const port = await freePort();
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // #region usage
    await provider.export(Greeter, { sayHello: (name: string) => `hello ${name}` }, { protocol: 'tri', port });
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, timeout: 500 });
    console.log(await greeter.sayHello('ann')); // hello ann
    console.log(await greeter.$call('sayHello', ['bo'], { attachments: { traceId: 't-1' } })); // hello bo
    // #endregion usage

    expect(log.mock.calls).toEqual([['hello ann'], ['hello bo']]);
  });

  it('streaming snippet runs: server, client and bidi streams between two applications', async () => {
    const provider = await harness.start('ticker-provider');
    const consumer = await harness.start('ticker-consumer');
    const port = await freePort();
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    class Tick {
      static readonly fields = { at: Date };
      constructor(
        readonly n: number,
        readonly at: Date,
      ) {}
    }
    async function* wordsFromSomewhere() {
      yield* ['hey', 'you'];
    }

    // #region streaming
    const Ticker = defineService('org.acme.Ticker', {
      countdown: { args: [Number], returns: Tick, stream: 'server' },
      sum: { args: [Number], returns: Number, stream: 'client' },
      shout: { args: [String], returns: String, stream: 'bidi' },
    });
    // provider: async generators (or any iterable) out, async iterables in
    await provider.export(Ticker, {
      async *countdown(from) { for (let n = from; n > 0; n--) yield new Tick(n, new Date()); },
      async sum(numbers) { let total = 0; for await (const n of numbers) total += n; return total; },
      async *shout(words) { for await (const word of words) yield `${word.toUpperCase()}!`; },
    }, { protocol: 'tri', port });
    const ticker = await consumer.refer(Ticker, { url: `tri://127.0.0.1:${port}` });
    // consumer: for await over the responses; an (async) iterable of requests in
    for await (const tick of ticker.countdown(3)) console.log(tick.n);
    console.log(await ticker.sum([1, 2, 3]));
    for await (const word of ticker.shout(wordsFromSomewhere())) console.log(word);
    // #endregion streaming

    expect(log.mock.calls).toEqual([[3], [2], [1], [6], ['HEY!'], ['YOU!']]);
    expect(readme).toContain('```ts\n' + region('streaming').replace(/^    /gm, '') + '\n```');
  });

  it('bind snippet runs: listen on every address, register a reachable one; listen and register apart', async () => {
    const app = await harness.start('bind-shop');
    const impl = { sayHello: (name: string) => `hello ${name}` };
    const Audit = defineService('org.acme.Audit', { sayHello: { args: [String], returns: String } });
    const [port, listenPort] = [await freePort(), await freePort()];
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // #region bind
    const lan = await app.export(Greeter, impl, { protocol: 'tri', host: '0.0.0.0', port });
    console.log(lan.url.host); // this machine's first non-loopback IPv4 address, e.g. 10.1.2.3 (never 0.0.0.0)
    const nat = await app.export(Audit, impl, { protocol: 'tri', host: 'audit.internal', port: 30051, bind: { ip: '0.0.0.0', port: listenPort } });
    console.log(nat.url.toIdentityString()); // tri://audit.internal:30051/org.acme.Audit: registered; listens on 0.0.0.0:listenPort
    // #endregion bind

    const external = firstExternalIpv4(networkInterfaces()) ?? '127.0.0.1';
    expect(log.mock.calls).toEqual([[external], ['tri://audit.internal:30051/org.acme.Audit']]);
    const consumer = await harness.start('bind-consumer');
    const audit = await consumer.refer(Audit, { url: `tri://127.0.0.1:${listenPort}`, timeout: 3000, retries: 0 });
    expect(await audit.sayHello('nat')).toBe('hello nat');
    expect(readme).toContain('```ts\n' + region('bind').replace(/^    /gm, '') + '\n```');
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
  });

  it('documents every URL key with its default', () => {
    const defaults: Record<string, string> = {
      [TripleKeys.PAYLOAD]: `\`${TripleDefaults.PAYLOAD}\` (8 MiB)`,
      [TripleKeys.SERIALIZATION]: `\`${TripleDefaults.SERIALIZATION}\``,
      [TripleKeys.MAX_CONCURRENT_STREAMS]: `\`${TripleDefaults.MAX_CONCURRENT_STREAMS}\``,
      [TripleKeys.MAX_HEADER_LIST_SIZE]: `\`${TripleDefaults.MAX_HEADER_LIST_SIZE}\``,
      [TripleKeys.RESOLVE_FALLBACK_TO_DEFAULT]: `\`${TripleDefaults.RESOLVE_FALLBACK_TO_DEFAULT}\``,
      [TripleKeys.SHUTDOWN_TIMEOUT]: `\`${TripleDefaults.SHUTDOWN_TIMEOUT}\``,
      [TripleKeys.SNIFF_TIMEOUT]: `\`${TripleDefaults.SNIFF_TIMEOUT}\``,
      [TripleKeys.CONNECTIONS]: `\`${TripleDefaults.CONNECTIONS}\``,
      [TripleKeys.LAZY]: `\`${TripleDefaults.LAZY}\``,
      [TripleKeys.CONNECT_TIMEOUT]: `\`${TripleDefaults.CONNECT_TIMEOUT}\``,
      [TripleKeys.RECONNECT_BACKOFF]: `\`${TripleDefaults.RECONNECT_BACKOFF}\``,
      [TripleKeys.RECONNECT_MAX_BACKOFF]: `\`${TripleDefaults.RECONNECT_MAX_BACKOFF}\``,
      [TripleKeys.HEARTBEAT]: `\`${TripleDefaults.HEARTBEAT}\``,
      [TripleKeys.INITIAL_WINDOW_SIZE]: `\`${TripleDefaults.INITIAL_WINDOW_SIZE}\``,
      [TripleKeys.CONNECTION_WINDOW_SIZE]: `\`${TripleDefaults.CONNECTION_WINDOW_SIZE}\``,
      [TripleKeys.HEALTH]: `\`${TripleDefaults.HEALTH}\``,
      [TripleKeys.REFLECTION]: `\`${TripleDefaults.REFLECTION}\``,
      [TripleKeys.PLAIN_HTTP]: `\`${TripleDefaults.PLAIN_HTTP}\``,
      [TripleKeys.CORS_ALLOWED_ORIGINS]: 'none (CORS off)',
      [TripleKeys.CORS_ALLOW_CREDENTIALS]: `\`${TripleDefaults.CORS_ALLOW_CREDENTIALS}\``,
      [TripleKeys.CORS_MAX_AGE]: `\`${TripleDefaults.CORS_MAX_AGE}\``,
      [TripleKeys.COMPRESSION]: `\`${TripleDefaults.COMPRESSION}\``,
      [TripleKeys.MAX_CONNECTION_BUFFER]: `\`${TripleDefaults.MAX_CONNECTION_BUFFER}\` (32 MiB)`,
      [TripleKeys.MAX_SERVER_BUFFER]: `\`${TripleDefaults.MAX_SERVER_BUFFER}\` (64 MiB)`,
      [TripleKeys.IDLE_TIMEOUT]: `\`${TripleDefaults.IDLE_TIMEOUT}\``,
      [TripleKeys.HEADER_TIMEOUT]: `\`${TripleDefaults.HEADER_TIMEOUT}\``,
      [TripleKeys.BODY_TIMEOUT]: `\`${TripleDefaults.BODY_TIMEOUT}\``,
    };
    expect(Object.keys(defaults).sort()).toEqual(Object.values(TripleKeys).sort());
    const rows = readme.split('\n').filter((line) => line.startsWith('| `'));
    for (const [key, text] of Object.entries(defaults)) {
      const row = rows.find((line) => line.startsWith(`| \`${key}\` |`));
      expect(row, `README options row for ${key}`).toBeDefined();
      expect(row).toContain(`| ${text} |`);
    }
    expect(readme).toContain('default port `50051`');
  });

  it('describes the extensions as the manifest declares them', () => {
    expect(manifest['tri']).toMatchObject({ module: './dist/triple-protocol.js', export: 'TripleProtocol' });
    expect(Object.keys(manifest).filter((k) => k !== '$schema')).toEqual(['tri']);
    expect(readme).toContain('| `weft.rpc.Protocol` | `tri` |');
  });
});
