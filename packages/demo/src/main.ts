// `npm run demo`: a guided tour of Weft. A provider and a consumer run as separate processes, registered in the
// embedded registry (a local folder, no server), calling each other over Triple (HTTP/2) on loopback.
//   --keep   leave both processes running at the end, for exploring (Ctrl+C stops them)
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ConfigValidator, FrameworkModel, Logger, RegistryFactory, URL } from '@weft/core';

import type { Command, Outcome, Reply } from './greeter.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'weft-demo-'));
const registryUrl = `embedded://${join(work, 'registry')}?poll.interval=100`;
const accessLog = join(work, 'access.log');
const children: ChildProcess[] = [];
const quiet = new (class extends Logger {
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(): void {}
})();

const bold = (s: string) => (process.stdout.isTTY ? `\u001b[1m${s}\u001b[0m` : s);
const step = (n: number, title: string) => console.log(`\n${bold(`── ${n}. ${title}`)}`);
const say = (line: string) => console.log(`   ${line}`);
const check = (line: string) => console.log(`   ✔ ${line}`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Starts a child process and waits for its "ready" message. */
function start(script: string, args: readonly string[]): Promise<ChildProcess> {
  const child = fork(join(here, script), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, WEFT_LOG: 'error' } });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 15 s`)), 15_000);
    child.once('message', (message: Reply) => {
      clearTimeout(timer);
      if (message.type === 'ready') {
        say(`started ${script.replace('.js', '')} (pid ${child.pid}): ${message.detail}`);
        resolve(child);
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with code ${code} before it was ready`)));
  });
}

let nextId = 1;
/** A command without its id (distributive over the union). */
type Request = Command extends infer C ? (C extends Command ? Omit<C, 'id'> : never) : never;

function ask(child: ChildProcess, command: Request): Promise<Extract<Reply, { type: 'result' }>> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to ${command.type} within 20 s`)), 20_000);
    const onMessage = (reply: Reply) => {
      if (reply.type === 'result' && reply.id === id) {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(reply);
      }
    };
    child.on('message', onMessage);
    child.send({ ...command, id });
  });
}

async function calls(consumer: ChildProcess, times: number, name = 'Weft', reference: 'plain' | 'guarded' = 'plain'): Promise<readonly Outcome[]> {
  return (await ask(consumer, { type: 'call', reference, method: 'sayHello', args: [name], times })).outcomes ?? [];
}

function show(outcomes: readonly Outcome[]): void {
  for (const o of outcomes) say(o.ok ? `→ ${JSON.stringify(o.value)}` : `✗ ${o.code}: ${o.message.split('. ')[0]}`);
}

async function until<T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  console.log(bold('Weft — a guided tour'));
  say(`registry: ${registryUrl.split('?')[0]} (a folder: no server to install)`);

  step(1, 'A provider and a consumer, in separate processes');
  const port = await freePort();
  let provider = await start('provider.js', [registryUrl, String(port), accessLog]);
  const consumer = await start('consumer.js', [registryUrl]);

  step(2, 'Normal calls, through the default filter chains');
  say('consumer: proxy → mock → failover → consumer filters → tri ══ HTTP/2 ══ provider filters → implementation');
  const normal = await calls(consumer, 2, 'Ann');
  show(normal);
  if (!normal.every((o) => o.ok)) throw new Error('normal calls failed');
  check('normal calls answered by the provider');

  step(3, 'A protobuf (IDL) service: one unary call, then a server stream');
  say('proto/weft/demo/v1/forecast.proto → protoc-gen-es → defineProtoService(Forecast): real gRPC on the same tri port');
  const forecast = (await ask(consumer, { type: 'forecast', city: 'Lisbon', days: 3 })).outcomes ?? [];
  show(forecast);
  if (forecast.length !== 4 || !forecast.every((o) => o.ok)) throw new Error('the Forecast calls failed');
  const [today] = forecast;
  check(`protobuf call answered: ${JSON.stringify(today?.ok ? today.value : '')}`);
  check(`server stream: ${forecast.length - 1} messages, read with for await`);

  step(4, 'The TPS limit biting (sayHello.tps=5 per 10 s on the provider; 2 already used above)');
  const burst = await calls(consumer, 8, 'Bo');
  const rejected = burst.filter((o) => !o.ok && o.code === 'limit-exceeded');
  show(burst);
  if (rejected.length === 0) throw new Error('the TPS limit did not reject anything');
  check(`TPS limit: ${rejected.length} of ${burst.length} calls rejected with limit-exceeded`);
  say('(limit-exceeded is a framework failure: a reference with a fail mock would answer these from its mock)');

  step(5, 'The provider fails: the consumer’s fail mock answers');
  // The access log flushes every 200 ms here; a killed process cannot save what it had not flushed yet.
  await new Promise((r) => setTimeout(r, 400));
  say(`killing the provider (pid ${provider.pid}) with SIGKILL…`);
  provider.kill('SIGKILL');
  await new Promise((r) => provider.once('exit', r));
  say('the guarded reference (mock: fail:return "…") answers from its fail mock; the plain one fails:');
  const degraded = await until('the fail mock', () => calls(consumer, 1, 'Cy', 'guarded'), (o) => o[0]?.ok === true && String(o[0].value).includes('fallback'));
  show(degraded);
  show(await calls(consumer, 1, 'Cy', 'plain'));
  check(`fail mock answered: ${JSON.stringify(degraded[0]?.ok ? degraded[0].value : '')}`);
  say('restarting the provider…');
  provider = await start('provider.js', [registryUrl, String(port), accessLog]);
  const back = await until('the provider to be back', () => calls(consumer, 1, 'Di', 'guarded'), (o) => o[0]?.ok === true && !String(o[0].value).includes('fallback'), 20_000);
  show(back);
  check('the provider is back: real answers again');

  step(6, 'A force mock pushed at runtime through the registry, then removed');
  const framework = FrameworkModel.create({ root, logger: quiet });
  const admin = framework.newApplication('demo-admin');
  await admin.loadExtensions(RegistryFactory, ConfigValidator);
  const registry = admin.getExtensionLoader(RegistryFactory).getExtension('embedded').getRegistry(URL.parse(registryUrl));
  const rule = URL.parse(
    'override://0.0.0.0/org.weft.demo.Greeter?category=configurators&dynamic=false&application=demo-consumer' +
      '&sayHello.mock=force:return+%22Hello+from+the+force+mock+(pushed+at+runtime)%22',
  );
  say(`registering ${rule.toDecodedString()}`);
  say(`(the same as: weft override set --registry ${registryUrl.split('?')[0]} --service org.weft.demo.Greeter --application demo-consumer 'sayHello.mock=force:return "…"')`);
  await registry.register(rule);
  await until('the override to arrive', () => ask(consumer, { type: 'mock-setting' }), (r) => String(r.value).startsWith('force'));
  const forced = await calls(consumer, 2, 'Ed');
  show(forced);
  if (!forced.every((o) => o.ok && String(o.value).includes('force mock'))) throw new Error('the force mock did not answer');
  check(`force mock seen: ${JSON.stringify(forced[0]?.ok ? forced[0].value : '')}`);
  await registry.unregister(rule);
  await until('the override to be removed', () => ask(consumer, { type: 'mock-setting' }), (r) => !String(r.value).startsWith('force'));
  const restored = await calls(consumer, 1, 'Flo');
  show(restored);
  check('override removed: the provider answers (or the TPS limit does) again');
  await framework.destroy();

  step(7, 'The access log');
  await new Promise((r) => setTimeout(r, 500));
  const lines = existsSync(accessLog) ? readFileSync(accessLog, 'utf8').split('\n').filter((l) => l.trim() !== '') : [];
  for (const line of lines.slice(-3)) say(line.length > 160 ? `${line.slice(0, 157)}...` : line);
  if (lines.length === 0) throw new Error('no access-log line was written');
  check(`access log: ${lines.length} lines in ${accessLog}`);

  if (keep) {
    say('\n--keep: the provider and the consumer keep running. Press Ctrl+C to stop.');
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  }
  await ask(consumer, { type: 'stop' }).catch(() => undefined);
  provider.send({ type: 'stop' });
  console.log(`\n${bold('Tour complete.')} Next: docs/guide/getting-started.md`);
}

main()
  .then(() => cleanup(0))
  .catch((error: unknown) => {
    console.error(`\n✗ the tour failed: ${(error as Error).message}`);
    cleanup(1);
  });

function cleanup(code: number): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  process.exit(code);
}
