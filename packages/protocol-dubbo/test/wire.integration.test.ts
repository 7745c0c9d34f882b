// Byte by byte against the spec's worked frames (§1.14), with the real Hessian2 codec: a Weft provider answers the
// Java request with Java's exact response bytes, and a Weft consumer talking to a raw socket "Java provider" sends
// Java's request shape, reads Java's responses (value, status 70, a JDK 17 RuntimeException), answers its heartbeat
// and obeys its readonly event.
import net from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { defineService, Invocation, RpcError } from '@weft/core';
import { encodeFrame, FrameDecoder, type DubboInvoker, type Frame } from '@weft/protocol-dubbo';
import { Protocol, URL } from '@weft/core';

import { Harness, freePort, waitFor } from './support/harness.js';
import { RawPeer } from './support/raw-peer.js';

const harness = new Harness(['@weft/core', '@weft/cluster', '@weft/protocol-dubbo', '@weft/serialization-hessian2'], false);
afterEach(() => harness.close());

const DEMO = 'org.apache.dubbo.demo.DemoService';
const DemoService = defineService(DEMO, { sayHello: { args: [String], returns: String } });
/** A Hessian string of ≤ 31 ASCII characters, as hex. */
const s = (text: string) => Buffer.concat([Buffer.from([text.length]), Buffer.from(text)]).toString('hex');
const demo = `3021${Buffer.from(DEMO).toString('hex')}`;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** The §1.14 request body, attachments in the spec's (HashMap) order. */
const REQUEST_BODY =
  s('2.0.2') + demo + s('0.0.0') + s('sayHello') + s('Ljava/lang/String;') + s('world') +
  '48' + s('path') + demo + s('remote.application') + s('demo-consumer') + s('interface') + demo + s('version') + s('0.0.0') + s('timeout') + s('3000') + '5a';
const OK_FLAG4 = 'dabb021400000000000000010000001b' + '940b48656c6c6f20776f726c64' + '4805647562626f05322e302e325a';
const STATUS70 = 'dabb0246000000000000000100000005' + '04626f6f6d';
const EXCEPTION_FLAG3 =
  'dabb02140000000000000001000000a7' + '93' + '431a' + Buffer.from('java.lang.RuntimeException').toString('hex') + '94' +
  s('suppressedExceptions') + s('stackTrace') + s('cause') + s('detailMessage') + '60' +
  '701f' + Buffer.from('java.util.Collections$EmptyList').toString('hex') + '701c' + Buffer.from('[java.lang.StackTraceElement').toString('hex') +
  '5190' + s('boom') + '4805647562626f05322e302e325a';

describe('dubbo wire: a Weft provider answers Java bytes with Java bytes', () => {
  it('answers the §1.14 sayHello("world") request with the exact flag-4 response', async () => {
    expect(REQUEST_BODY.length / 2).toBe(228);
    const port = await freePort();
    const provider = await harness.start('demo-provider');
    await provider.export(DemoService, { sayHello: (name) => `Hello ${name}` }, { protocol: 'dubbo', port });
    const peer = await RawPeer.connect(port);
    peer.write(Buffer.from('dabbc20000000000000000010000' + '00e4' + REQUEST_BODY, 'hex'));
    const answer = await peer.frame();
    expect(hex(encodeFrame(answer.flag, answer.status, answer.idHigh, answer.idLow, answer.body))).toBe(OK_FLAG4);
    peer.destroy();
  });
});

/** A raw TCP server standing for a Java provider: records request frames, answers with `answer(frame)`. */
async function javaProvider(answer: (frame: Frame, socket: net.Socket) => void): Promise<{ port: number; frames: Frame[]; sockets: net.Socket[] }> {
  const frames: Frame[] = [];
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    const decoder = new FrameDecoder(0, { frame: (f) => (frames.push(f), answer(f, socket)), oversized: () => undefined, corrupt: () => socket.destroy() });
    socket.on('data', (c: Buffer) => decoder.push(c));
    socket.on('error', () => undefined);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  harness.onClose(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { port, frames, sockets };
}

/** The same bytes with the request id of `frame`. */
function withId(frameHex: string, frame: Frame): Buffer {
  const bytes = Buffer.from(frameHex, 'hex');
  bytes.writeUInt32BE(frame.idHigh, 4);
  bytes.writeUInt32BE(frame.idLow, 8);
  return bytes;
}

describe('dubbo wire: a Weft consumer against a Java provider on a raw socket', () => {
  it('sends the request Java sends, and reads flag-4 values, status-70 messages and a JDK 17 RuntimeException', async () => {
    const replies = [OK_FLAG4, STATUS70, EXCEPTION_FLAG3];
    const java = await javaProvider((frame, socket) => {
      if ((frame.flag & 0x20) !== 0) return;
      socket.write(withId(replies.shift() as string, frame));
    });
    const consumer = await harness.start('demo-consumer');
    const url = new URL({ protocol: 'dubbo', host: '127.0.0.1', port: java.port, path: DEMO, parameters: { interface: DEMO, application: 'demo-consumer', timeout: '3000' } });
    const invoker = await consumer.model.getExtensionLoader(Protocol).getExtension('dubbo').refer(DemoService, url);
    const call = () => invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['world'], service: DemoService }));
    expect((await call()).value).toBe('Hello world');
    const request = java.frames[0] as Frame;
    expect([request.flag, request.status]).toEqual([0xc2, 0]);
    // Body fields 1–6 exactly as Java writes them; then the attachments map (its order is the writer's).
    const head = s('2.0.2') + demo + s('0.0.0') + s('sayHello') + s('Ljava/lang/String;') + s('world') + '48';
    expect(hex(request.body).startsWith(head)).toBe(true);
    const attachments = hex(request.body).slice(head.length);
    for (const entry of [s('path') + demo, s('interface') + demo, s('version') + s('0.0.0'), s('remote.application') + s('demo-consumer')]) {
      expect(attachments).toContain(entry);
    }
    expect(attachments).toMatch(new RegExp(`^(..)*${s('timeout')}0[1-4](3[0-9])+`));
    expect(attachments.endsWith('5a')).toBe(true);

    const failed = (await Promise.resolve(call()).catch((e: unknown) => e)) as RpcError;
    expect(failed).toBeInstanceOf(RpcError);
    expect(failed.message).toBe(`Call ${DEMO}.sayHello() to 127.0.0.1:${java.port} failed: status 70 SERVICE_ERROR: boom`);

    const thrown = await call();
    expect(thrown.hasException()).toBe(true);
    expect((thrown.exception as Error).name).toBe('java.lang.RuntimeException');
    expect((thrown.exception as Error).message).toBe('boom');
    await invoker.destroy();
  });

  it('answers the provider heartbeat with the same id, and stops routing on its readonly event', async () => {
    const java = await javaProvider(() => undefined);
    const consumer = await harness.start('demo-consumer');
    const url = new URL({ protocol: 'dubbo', host: '127.0.0.1', port: java.port, path: DEMO, parameters: { interface: DEMO } });
    const invoker = (await consumer.model.getExtensionLoader(Protocol).getExtension('dubbo').refer(DemoService, url)) as DubboInvoker;
    await waitFor(() => java.sockets.length === 1, 2000, 'the connection');
    const socket = java.sockets[0] as net.Socket;
    socket.write(Buffer.from('dabbe20000000000000000050000000' + '14e', 'hex'));
    await waitFor(() => java.frames.length === 1, 2000, 'the heartbeat answer');
    const beat = java.frames[0] as Frame;
    expect(hex(encodeFrame(beat.flag, beat.status, beat.idHigh, beat.idLow, beat.body))).toBe('dabb221400000000000000050000000' + '14e');
    expect(invoker.isAvailable()).toBe(true);
    socket.write(Buffer.from('dabba2000000000000000006000000020152', 'hex'));
    await waitFor(() => !invoker.isAvailable(), 2000, 'the readonly event');
    expect(invoker.connection.readonly).toBe(true);
    await invoker.destroy();
  });
});
