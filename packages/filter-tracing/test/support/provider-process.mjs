// A traced provider in its own process: node provider-process.mjs <app root> <port> [protocol]
// Exports org.acme.Greeter and org.acme.Downstream over <protocol> (`tri`, the default, or `dubbo`) on
// 127.0.0.1:<port>; Greeter.hello calls Downstream.ping through a reference over the same protocol (the nested call),
// inside an application span of its own. org.acme.Ticker (server streaming) is exported on tri only. Prints "ready",
// then answers each "spans" line on stdin with one JSON line of the spans finished so far.
import { createInterface } from 'node:readline';

import { propagation, context, trace } from '@opentelemetry/api';
import { defineService, WeftApplication } from '@weft/core';

import { installTracing, spanData } from './otel.mjs';

const exporter = installTracing();
const [root, port, protocol = 'tri'] = process.argv.slice(2);

// The Java class dubbo:// sends the error as (a Weft consumer rebuilds its declared Declined from it).
class Declined extends Error {
  static javaClass = 'org.acme.Declined';
  name = 'Declined';
}

const Greeter = defineService('org.acme.Greeter', {
  hello: { args: [String], returns: String },
  decline: { args: [String], throws: [Declined] },
});
const Ticker = defineService('org.acme.Ticker', { countdown: { args: [Number], returns: Number, stream: 'server' } });
const Downstream = defineService('org.acme.Downstream', { ping: { args: [String], returns: String } });

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const app = await WeftApplication.start({ root, name: 'traced-provider', logger: silent });
const where = { protocol, host: '127.0.0.1', port: Number(port) };
await app.export(Downstream, { ping: (text) => `pong ${text} (baggage ${propagation.getActiveBaggage()?.getEntry('tenant')?.value ?? 'none'})` }, where);
const downstream = await app.refer(Downstream, { url: `${protocol}://127.0.0.1:${port}`, retries: 0 });
const tracer = trace.getTracer('provider-app');
await app.export(
  Greeter,
  {
    hello: (name) =>
      tracer.startActiveSpan('app-work', async (span) => {
        try {
          return `hello ${name}; ${await downstream.ping(name)}; in span ${trace.getSpan(context.active())?.spanContext().spanId}`;
        } finally {
          span.end();
        }
      }),
    decline: (why) => {
      throw new Declined(`declined: ${why}`);
    },
  },
  where,
);
if (protocol === 'tri') {
  await app.export(
    Ticker,
    {
      async *countdown(from) {
        for (let n = from; n > 0; n--) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          yield n;
        }
      },
    },
    where,
  );
}
process.stdout.write('ready\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'spans') process.stdout.write(`${JSON.stringify(exporter.getFinishedSpans().map(spanData))}\n`);
});
process.on('SIGTERM', () => {
  app.shutdown({ timeout: 2000 }).finally(() => process.exit(0));
});
