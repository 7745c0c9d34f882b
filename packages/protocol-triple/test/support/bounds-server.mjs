// A provider in its own process, for the resource-bound tests (its RSS is not vitest's):
//   node bounds-server.mjs <app root> <port> '<parameters JSON>'
// Exports org.acme.Sink over tri on 127.0.0.1:<port> with the given URL parameters and prints "ready". It samples
// its RSS every 10 ms; commands on stdin, one a line: "rss" → "rss <peak bytes> <current bytes>" (and resets the
// peak), "shutdown" → "shutdown <ms>" (how long app.shutdown() took), then exits.
import { createInterface } from 'node:readline';

import { defineService, WeftApplication } from '@weft/core';

const [root, port, parametersJson] = process.argv.slice(2);
const parameters = JSON.parse(parametersJson ?? '{}');

const Sink = defineService('org.acme.Sink', {
  put: { args: [String], returns: Number },
  /** Server stream: `n` replies of `size` characters, as fast as the stream takes them. */
  feed: { args: [Number, Number], returns: String, stream: 'server' },
  /** Client stream read slowly: one message per `delay` ms. */
  slowSum: { args: [String], returns: Number, stream: 'client' },
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const app = await WeftApplication.start({ root, name: `bounds-${process.pid}`, logger: silent });
let written = 0;
await app.export(
  Sink,
  {
    put: (text) => text.length,
    async *feed(n, size) {
      const text = 'x'.repeat(size);
      for (let i = 0; i < n; i++) {
        written++;
        yield text;
      }
    },
    async slowSum(requests) {
      let total = 0;
      for await (const text of requests) {
        total += text.length;
        await sleep(20);
      }
      return total;
    },
  },
  { protocol: 'tri', host: '127.0.0.1', port: Number(port), parameters },
);

let peak = process.memoryUsage().rss;
const sampler = setInterval(() => {
  const rss = process.memoryUsage().rss;
  if (rss > peak) peak = rss;
}, 10);
sampler.unref();

process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line === 'rss') {
    const rss = process.memoryUsage().rss;
    process.stdout.write(`rss ${Math.max(peak, rss)} ${rss} ${written}\n`);
    peak = rss;
  } else if (line === 'shutdown') {
    const started = Date.now();
    void app.shutdown().finally(() => {
      process.stdout.write(`shutdown ${Date.now() - started}\n`);
      process.exit(0);
    });
  }
});
