// Hostile Hessian inside dubbo:// request bodies, with the real @weft/serialization-hessian2 codec: an unknown tag, a
// class definition referred to beyond the table, a reference loop, 10⁵-deep nesting and a 10⁷-element list header
// each get status 40 naming the problem; the server stays up, and its memory stays bounded (RSS of a child process).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { defineService } from '@weft/core';
import { DubboStatus, encodeFrame } from '@weft/protocol-dubbo';
import { Hessian2Serialization } from '@weft/serialization-hessian2';

import { freePort, Harness, HESSIAN_PACKAGES } from './support/harness.js';
import { RawPeer } from './support/raw-peer.js';

const harness = new Harness(HESSIAN_PACKAGES, false);
afterEach(() => harness.close());

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String }, echo: { args: [Object], returns: Object } });
const s = (text: string) => Buffer.concat([Buffer.from([text.length]), Buffer.from(text)]);
/** A request body for `echo(Object)` whose argument is `arg`, followed by an empty attachments map. */
const echoBody = (arg: Buffer) => Buffer.concat([s('2.0.2'), s('org.acme.Greeter'), s('0.0.0'), s('echo'), s('Ljava/lang/Object;'), arg, Buffer.from([0x48, 0x5a])]);

const HOSTILE: readonly (readonly [string, Buffer])[] = [
  ['an unknown tag (0x40)', Buffer.from([0x40])],
  ['an instance of class definition #5 with an empty table', Buffer.from([0x65])],
  ['a reference to an object not yet read (ref #3)', Buffer.from([0x51, 0x93])],
  ['10⁵-deep nested lists', Buffer.concat([Buffer.alloc(100_000, 0x57), Buffer.alloc(100_000, 0x5a)])],
  ['a 10⁷-element list header with 3 elements', Buffer.from([0x58, 0x49, 0x00, 0x98, 0x96, 0x80, 0x91, 0x92, 0x93])],
];

const readString = (body: Uint8Array) => new Hessian2Serialization().createInput(body).readString();

describe('dubbo bad input: hostile Hessian', () => {
  it('answers each hostile argument with status 40 and keeps serving', async () => {
    const port = await freePort();
    const app = await harness.start('provider');
    await app.export(Greeter, { sayHello: (n) => `hello ${n}`, echo: (v) => v }, { protocol: 'dubbo', port });
    const peer = await RawPeer.connect(port);
    HOSTILE.forEach(([, arg], i) => peer.write(encodeFrame(0xc2, 0, 0, i + 1, echoBody(arg))));
    for (let i = 0; i < HOSTILE.length; i++) {
      const answer = await peer.frame(i + 1, 5000);
      const [what] = HOSTILE[answer.idLow - 1] as readonly [string, Buffer];
      expect([what, answer.status]).toEqual([what, DubboStatus.BAD_REQUEST]);
      expect(readString(answer.body), what).toMatch(/^Fail to decode request due to: RpcError: hessian2: /);
    }
    // The same connection still answers a good call.
    peer.write(encodeFrame(0xc2, 0, 0, 99, echoBody(s('fine'))));
    const fine = await peer.frame(HOSTILE.length + 1);
    expect([fine.idLow, fine.status]).toEqual([99, DubboStatus.OK]);
    peer.destroy();
  });

  it('stays within a bounded RSS while 200 hostile bodies arrive (child-process provider)', async () => {
    const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(new URL('./support/rss-provider.mjs', import.meta.url)), harness.root, String(await freePort()), 'hessian'], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, WEFT_LOG: 'error' },
    });
    harness.onClose(() => {
      child.kill('SIGKILL');
    });
    const lines: string[] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => lines.push(...text.trim().split('\n')));
    const waitLine = async (prefix: string, after = 0) => {
      const end = Date.now() + 10_000;
      for (;;) {
        const line = lines.slice(after).find((l) => l.startsWith(prefix));
        if (line !== undefined) return Number(line.slice(prefix.length));
        if (Date.now() > end) throw new Error(`child said no "${prefix}" (said: ${lines.join(' | ')})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const port = await waitLine('port ');
    const before = await waitLine('rss ');
    const peer = await RawPeer.connect(port);
    for (let round = 0; round < 40; round++) HOSTILE.forEach(([, arg], i) => peer.write(encodeFrame(0xc2, 0, round, i, echoBody(arg))));
    await peer.frame(40 * HOSTILE.length, 15_000);
    expect(peer.frames.every((f) => f.status === DubboStatus.BAD_REQUEST)).toBe(true);
    const mark = lines.length;
    child.stdin.write('measure\n');
    const after = await waitLine('rss-after ', mark);
    peer.destroy();
    if (process.env['WEFT_DUBBO_RSS'] === '1') process.stdout.write(`hostile hessian RSS: before ${(before / 2 ** 20).toFixed(1)} MiB, after ${(after / 2 ** 20).toFixed(1)} MiB\n`);
    // A 10⁷-element list preallocated would be 80 MiB per body.
    expect((after - before) / 2 ** 20).toBeLessThan(64);
  }, 25_000);
});
