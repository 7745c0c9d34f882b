// The tour's provider process: exports Greeter over Triple on loopback, registered in the embedded registry.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { WeftApplication } from '@weft/core';

import { Forecast, Greeter } from './greeter.js';

const [registry, port, accessLog] = process.argv.slice(2) as [string, string, string];
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const app = await WeftApplication.start({ root, name: 'demo-provider', registry });
let served = 0;
await app.export(
  Greeter,
  {
    sayHello: (name: string) => `Hello, ${name}! (served by pid ${process.pid})`,
    count: () => ++served,
  },
  {
    protocol: 'tri',
    port: Number(port),
    parameters: { accesslog: accessLog, 'accesslog.flush.interval': 200 },
    // The TPS limit of the tour: 5 sayHello calls per 10 s window.
    methods: { sayHello: { tps: 5, 'tps.interval': 10_000 } },
  },
);
// A protobuf (IDL) service on the same port: real gRPC, so grpc-js, grpcurl or Python's grpcio could call it too.
const SUMMARIES = ['sunny', 'cloudy', 'rain', 'wind', 'snow'];
await app.export(
  Forecast,
  {
    current: (request) => ({ city: request.city, summary: 'sunny', celsius: 21 }),
    // A server stream: an async generator, one message per yield (pulled only as fast as the consumer reads).
    async *days(request) {
      for (let index = 0; index < request.days; index++) {
        yield { index, summary: SUMMARIES[index % SUMMARIES.length] ?? 'sunny', high: 20 - index, low: 10 - 2 * index };
      }
    },
  },
  { protocol: 'tri', port: Number(port) },
);
process.send?.({ type: 'ready', detail: `tri://127.0.0.1:${port} (org.weft.demo.Greeter, weft.demo.v1.Forecast)` });
const stop = async () => {
  await app.shutdown({ timeout: 2000 });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') void stop();
});
