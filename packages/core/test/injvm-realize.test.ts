// Values arrive as declared over injvm (copy mode, the default): nested Dates, arrays, maps and sets of declared
// classes, for arguments and results, to any depth; a value that does not fit is refused naming the field path.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import {
  Cluster,
  defineService,
  ExtensionError,
  Logger,
  mapOf,
  RpcError,
  RpcErrorCode,
  setOf,
  WeftApplication,
  type ServiceImplementation,
} from '@weft/core';

import { FirstCluster } from './support/first-cluster.js';

class SilentLogger extends Logger {
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(): void {}
}

class Reply {
  text = '';
  at = new Date(0);
  static readonly fields = { at: Date };
  age(now: Date): number {
    return now.getTime() - this.at.getTime();
  }
}

class Greeting {
  text = '';
  at = new Date(0);
  replies: Reply[] = [];
  byAuthor = new Map<string, Reply>();
  seen = new Set<Date>();
  static readonly fields = { at: Date, replies: [Reply], byAuthor: mapOf(String, Reply), seen: setOf(Date) };
}

class Thread {
  title = '';
  children: Thread[] = [];
  static readonly fields = { children: [Thread] };
}

const Greeter = defineService('org.acme.Greeter', {
  greet: { args: [String], returns: Greeting },
  reply: { args: [Greeting, Reply], returns: [Reply] },
  byDay: { args: [mapOf(Date, [Reply])], returns: mapOf(String, setOf(Date)) },
  thread: { args: [Thread], returns: Thread },
  bad: { returns: Greeting },
});

interface Seen {
  args: unknown[][];
}

function impl(seen: Seen): ServiceImplementation<typeof Greeter.methods> {
  return {
    greet: (name) => {
      const reply = Object.assign(new Reply(), { text: 'yo', at: new Date(2000) });
      return Object.assign(new Greeting(), {
        text: `hello ${name}`,
        at: new Date(1000),
        replies: [reply],
        byAuthor: new Map([['ann', reply]]),
        seen: new Set([new Date(3000)]),
      });
    },
    reply: (greeting, reply) => {
      seen.args.push([greeting, reply]);
      return [...greeting.replies, reply];
    },
    byDay: (days) => {
      seen.args.push([days]);
      return new Map([...days].map(([day, replies]) => [day.toISOString(), new Set(replies.map((r) => r.at))]));
    },
    thread: (thread) => {
      seen.args.push([thread]);
      return Object.assign(new Thread(), { title: 're', children: [thread] });
    },
    // Breaks its own declaration: `at` is not a date (as a provider in another language could send).
    bad: () => ({ text: 'x', at: 'yesterday', replies: [{ at: 0 }, { at: 'later' }] }) as unknown as Greeting,
  };
}

const apps: WeftApplication[] = [];
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.shutdown({ timeout: 200 })));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function startApp(): Promise<WeftApplication> {
  const root = mkdtempSync(join(tmpdir(), 'weft-realize-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
  const app = await WeftApplication.start({ root, name: 't', logger: new SilentLogger() });
  apps.push(app);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
  return app;
}

async function setup(parameters: Record<string, string> = {}) {
  const app = await startApp();
  const seen: Seen = { args: [] };
  await app.export(Greeter, impl(seen));
  const greeter = await app.refer(Greeter, { parameters });
  return { app, greeter, seen };
}

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  expect((error as RpcError).code).toBe(RpcErrorCode.SERIALIZATION);
  return error as RpcError;
}

describe('injvm (copy): nested declared types', () => {
  it('a result arrives with its Date field, its array, map and set of declared classes realised', async () => {
    const { greeter } = await setup();
    const greeting = await greeter.greet('ann');
    expect(greeting).toBeInstanceOf(Greeting);
    expect(greeting.at).toBeInstanceOf(Date);
    expect(greeting.at.getTime()).toBe(1000);
    expect(greeting.replies[0]).toBeInstanceOf(Reply);
    expect(greeting.replies[0]?.age(new Date(2500))).toBe(500);
    expect(greeting.byAuthor).toBeInstanceOf(Map);
    expect(greeting.byAuthor.get('ann')).toBeInstanceOf(Reply);
    expect(greeting.byAuthor.get('ann')?.at).toEqual(new Date(2000));
    expect(greeting.seen).toBeInstanceOf(Set);
    expect([...greeting.seen]).toEqual([new Date(3000)]);
  });

  it('arguments arrive realised on the provider: nested classes, a map keyed by Date, a recursive tree', async () => {
    const { greeter, seen } = await setup();
    const sent = Object.assign(new Greeting(), { replies: [Object.assign(new Reply(), { at: new Date(5) })] });
    const replies = await greeter.reply(sent, Object.assign(new Reply(), { at: new Date(6) }));
    const [greeting, reply] = seen.args[0] as [Greeting, Reply];
    expect(greeting).not.toBe(sent);
    expect(greeting.replies[0]).toBeInstanceOf(Reply);
    expect(greeting.replies[0]?.at).toEqual(new Date(5));
    expect(reply.at).toEqual(new Date(6));
    expect(replies.map((r) => r instanceof Reply && r.at.getTime())).toEqual([5, 6]);

    const days = await greeter.byDay(new Map([[new Date(0), [Object.assign(new Reply(), { at: new Date(7) })]]]));
    const [received] = seen.args[1] as [Map<Date, Reply[]>];
    const [day, dayReplies] = [...received][0] as [Date, Reply[]];
    expect(day).toBeInstanceOf(Date);
    expect(dayReplies[0]).toBeInstanceOf(Reply);
    expect(days.get('1970-01-01T00:00:00.000Z')).toEqual(new Set([new Date(7)]));

    const tree = Object.assign(new Thread(), { title: 'a', children: [Object.assign(new Thread(), { title: 'b', children: [] })] });
    const answer = await greeter.thread(tree);
    expect((seen.args[2] as [Thread])[0].children[0]).toBeInstanceOf(Thread);
    expect(answer.children[0]?.children[0]).toBeInstanceOf(Thread);
    expect(answer.children[0]?.children[0]?.title).toBe('b');
  });

  it('a result that does not fit is refused naming the method and the field path', async () => {
    const { greeter } = await setup();
    expect((await rpcError(greeter.bad())).message).toBe('bad() result .at: expected Date, got "yesterday".');
  });

  it('an argument that does not fit is refused naming the argument and the path, before the provider runs', async () => {
    const { greeter, seen } = await setup();
    const reply = greeter.reply as (g: unknown, r: unknown) => Promise<Reply[]>;
    expect((await rpcError(reply({ replies: [{ at: 0 }, { at: 0 }, { at: {} }] }, {}))).message).toBe(
      'reply() argument 0 .replies[2].at: expected Date, got {}.',
    );
    expect((await rpcError(reply({}, { at: 'soon' }))).message).toBe('reply() argument 1 .at: expected Date, got "soon".');
    expect(seen.args).toHaveLength(0);
  });

  it('data nested past the depth limit is refused with a clear error, not a stack overflow', async () => {
    const { greeter } = await setup();
    let deep = new Thread();
    for (let i = 0; i < 300; i++) deep = Object.assign(new Thread(), { children: [deep] });
    const message = (await rpcError(greeter.thread(deep))).message;
    expect(message).toMatch(/^thread\(\) argument 0 (\.children\[0\]){3}…\(\d+ more\)…(\.children\[0\]){3}: nested deeper than 256 levels \(the limit for realised values\)\.$/);
  });

  it('copy=false passes the objects by reference (nothing to realise)', async () => {
    const { greeter, seen } = await setup({ copy: 'false' });
    const sent = new Greeting();
    const reply = new Reply();
    await greeter.reply(sent, reply);
    expect((seen.args[0] as unknown[])[0]).toBe(sent);
  });

  it('a class whose `fields` declaration is malformed fails the refer, naming the class and the field', async () => {
    class Broken {
      static readonly fields = { at: 'Date' };
    }
    const Bad = defineService('org.acme.Bad', { get: { returns: Broken } });
    const app = await startApp();
    await app.export(Bad, { get: () => new Broken() });
    const error = await app.refer(Bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as Error).message).toContain('Broken.fields.at: "Date" is not a type descriptor (use String, Number, Boolean, Date');
  });
});
