// Plain-HTTP request bodies are bounded like gRPC ones: a body that stops arriving is answered 408 at `body-timeout`,
// and bytes buffered across unfinished bodies count against `max-server-buffer` / `max-connection-buffer` (503).
import net from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { defineService } from '@weft/core';
import { freePort } from '@weft/test-utils';

import { Harness } from './support/harness.js';

const harness = new Harness();
afterEach(() => harness.close());

const Upload = defineService('org.acme.Upload', { size: { args: [String], returns: Number } });

async function provider(parameters: Record<string, string>): Promise<number> {
  const port = await freePort();
  const app = await harness.start('upload-provider');
  await app.export(Upload, { size: (text) => text.length }, { protocol: 'tri', port, parameters });
  return port;
}

/** An HTTP/1.1 POST that declares `length` bytes, sends `sent` of them and then waits; resolves with the raw answer. */
function partialPost(port: number, length: number, sent: number): { socket: net.Socket; answer: Promise<string> } {
  const socket = net.connect({ host: '127.0.0.1', port });
  socket.write(
    `POST /org.acme.Upload/size HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n` +
      '"' + 'x'.repeat(sent - 1),
  );
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
  });
  harness.onClose(() => {
    socket.destroy();
  });
  return { socket, answer };
}

describe('plain-HTTP bodies are bounded', () => {
  it('a body that stops arriving is answered 408 at body-timeout and the connection closes', async () => {
    const port = await provider({ 'body-timeout': '300' });
    const started = Date.now();
    const { answer } = partialPost(port, 100_000, 1000);
    const text = await answer;
    const elapsed = Date.now() - started;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('Request body stalled: no data for 300 ms (URL key \\"body-timeout\\").');
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(3000);
  });

  it('unfinished bodies count against max-server-buffer: the one passing it gets 503 naming the key; others still work', async () => {
    const port = await provider({ 'max-server-buffer': String(256 * 1024), 'body-timeout': '5000' });
    const first = partialPost(port, 150_000, 100_000);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const second = partialPost(port, 1_000_000, 200_000);
    const text = await second.answer;
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toContain('per server (URL key \\"max-server-buffer\\"');
    // The first upload still holds its bytes; finishing it answers normally and frees them.
    first.socket.end('x'.repeat(150_000 - 100_000 - 1) + '"');
    expect(await first.answer).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\n149998$/);
    const small = await fetch(`http://127.0.0.1:${port}/org.acme.Upload/size`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '"abc"',
    });
    expect(await small.text()).toBe('3');
  });
});
