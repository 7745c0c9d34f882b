// Values arrive as declared over tri (a real server on loopback): nested Dates, arrays, maps and sets of declared
// classes, for arguments and results, to any depth; a value that does not fit is refused naming the field path,
// and hostile nesting sent by a client is refused with a clear error.
import http from 'node:http';

import { afterEach, describe, expect, it } from 'vitest';

import { defineService, ExtensionError, mapOf, RpcError, RpcErrorCode, setOf, type ServiceImplementation, type WeftApplication } from '@weft/core';
import { freePort } from '@weft/test-utils';

import { Harness } from './support/harness.js';

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

const Feed = defineService('org.acme.Feed', {
  greet: { args: [String], returns: Greeting },
  reply: { args: [Greeting, Reply], returns: [Reply] },
  byDay: { args: [mapOf(Date, [Reply])], returns: mapOf(String, setOf(Date)) },
  thread: { args: [Thread], returns: Thread },
  bad: { returns: Greeting },
});

function impl(seen: unknown[][]): ServiceImplementation<typeof Feed.methods> {
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
      seen.push([greeting, reply]);
      return [...greeting.replies, reply];
    },
    byDay: (days) => {
      seen.push([days]);
      return new Map([...days].map(([day, replies]) => [day.toISOString(), new Set(replies.map((r) => r.at))]));
    },
    thread: (thread) => {
      seen.push([thread]);
      return Object.assign(new Thread(), { title: 're', children: [thread] });
    },
    bad: () => ({ text: 'x', at: 'yesterday', replies: [{ at: 0 }, { at: 'later' }] }) as unknown as Greeting,
  };
}

const harness = new Harness();
afterEach(() => harness.close());

async function pair() {
  const port = await freePort();
  const seen: unknown[][] = [];
  const provider: WeftApplication = await harness.start('provider-app');
  await provider.export(Feed, impl(seen), { protocol: 'tri', port });
  const consumer = await harness.start('consumer-app');
  const feed = await consumer.refer(Feed, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 3000 });
  return { feed, seen, port };
}

async function rpcError(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

function post(port: number, path: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('tri: nested declared types', () => {
  it('a result arrives with its Date field, its array, map and set of declared classes realised', async () => {
    const { feed } = await pair();
    const greeting = await feed.greet('ann');
    expect(greeting).toBeInstanceOf(Greeting);
    expect(greeting.at).toBeInstanceOf(Date);
    expect(greeting.at.getTime()).toBe(1000);
    expect(greeting.replies[0]).toBeInstanceOf(Reply);
    expect(greeting.replies[0]?.age(new Date(2500))).toBe(500);
    expect(greeting.byAuthor.get('ann')).toBeInstanceOf(Reply);
    expect(greeting.byAuthor.get('ann')?.at).toEqual(new Date(2000));
    expect([...greeting.seen]).toEqual([new Date(3000)]);
  });

  it('arguments arrive realised on the provider: nested classes, a map keyed by Date, a recursive tree', async () => {
    const { feed, seen } = await pair();
    const sent = Object.assign(new Greeting(), { replies: [Object.assign(new Reply(), { at: new Date(5) })] });
    const replies = await feed.reply(sent, Object.assign(new Reply(), { at: new Date(6) }));
    const [greeting, reply] = seen[0] as [Greeting, Reply];
    expect(greeting).toBeInstanceOf(Greeting);
    expect(greeting.replies[0]).toBeInstanceOf(Reply);
    expect(greeting.replies[0]?.at).toEqual(new Date(5));
    expect(reply.at).toEqual(new Date(6));
    expect(replies.map((r) => r instanceof Reply && r.at.getTime())).toEqual([5, 6]);

    const days = await feed.byDay(new Map([[new Date(0), [Object.assign(new Reply(), { at: new Date(7) })]]]));
    const [day, dayReplies] = [...(seen[1] as [Map<Date, Reply[]>])[0]][0] as [Date, Reply[]];
    expect(day).toBeInstanceOf(Date);
    expect(dayReplies[0]).toBeInstanceOf(Reply);
    expect(days.get('1970-01-01T00:00:00.000Z')).toEqual(new Set([new Date(7)]));

    const tree = Object.assign(new Thread(), { title: 'a', children: [Object.assign(new Thread(), { title: 'b', children: [] })] });
    const answer = await feed.thread(tree);
    expect((seen[2] as [Thread])[0].children[0]).toBeInstanceOf(Thread);
    expect(answer.children[0]?.children[0]).toBeInstanceOf(Thread);
    expect(answer.children[0]?.children[0]?.title).toBe('b');
  });

  it('a result that does not fit is refused on the consumer naming the method and the field path', async () => {
    const { feed } = await pair();
    const error = await rpcError(feed.bad());
    expect(error.code).toBe(RpcErrorCode.SERIALIZATION);
    // Failover's summary wraps the codec's message.
    expect(error.message).toMatch(/^Failed to invoke the method bad in the service org\.acme\.Feed\. .*Last error is: bad\(\) result \.at: expected Date, got "yesterday"\.$/);
  });

  it('an argument that does not fit is refused by the provider naming the argument and the path', async () => {
    const { feed, seen } = await pair();
    const reply = feed.reply as (g: unknown, r: unknown) => Promise<Reply[]>;
    const error = await rpcError(reply({ replies: [{ at: 0 }, { at: 0 }, { at: {} }] }, {}));
    expect(error.code).toBe(RpcErrorCode.SERIALIZATION);
    // The provider's refusal is final (a gRPC status no other provider would answer differently): not retried, so
    // the message is the codec's own, not failover's summary.
    expect(error.message).toBe('reply() argument 0 .replies[2].at: expected Date, got {}.');
    expect(seen).toHaveLength(0);
  });

  it('a client sending data nested past the depth limit gets a clear error, and the server keeps serving', async () => {
    const { feed, port, seen } = await pair();
    const depth = 5000;
    const body = `[${'{"children":['.repeat(depth)}{}${']}'.repeat(depth)}]`;
    const answer = await post(port, '/org.acme.Feed/thread', body);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.body).toMatch(/thread\(\) argument 0 (\.children\[0\]){3}…\(\d+ more\)…(\.children\[0\]){3}: nested deeper than 256 levels \(the limit for realised values\)\./);
    expect(seen).toHaveLength(0);
    expect((await feed.greet('again')).text).toBe('hello again');
  });

  it('a class whose `fields` declaration is malformed fails the export and the refer, naming the class and field', async () => {
    class Broken {
      static readonly fields = { at: 'Date' };
    }
    const Bad = defineService('org.acme.Bad', { get: { returns: Broken } });
    const port = await freePort();
    const app = await harness.start('bad-app');
    const exported = await app.export(Bad, { get: () => new Broken() }, { protocol: 'tri', port }).catch((e: unknown) => e);
    expect(exported).toBeInstanceOf(ExtensionError);
    expect((exported as Error).message).toContain('Broken.fields.at: "Date" is not a type descriptor (use String, Number, Boolean, Date');
    const referred = await app.refer(Bad, { url: `tri://127.0.0.1:${port}`, check: false }).catch((e: unknown) => e);
    expect(referred).toBeInstanceOf(ExtensionError);
    expect((referred as Error).message).toContain('Broken.fields.at: "Date" is not a type descriptor');
  });
});
