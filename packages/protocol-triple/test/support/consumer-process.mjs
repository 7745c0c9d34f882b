// A consumer in its own process, for the cross-process tests:
//   node consumer-process.mjs <app root> <port>
// Refers org.acme.Greeter over tri, calls sayHello once, prints the answer — and never shuts down: the process
// must still exit by itself once the call is done (idle connections and timers do not keep it alive).
import { defineService, WeftApplication } from '@weft/core';

const [root, port] = process.argv.slice(2);
const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const app = await WeftApplication.start({ root, name: 'idle-consumer', logger: silent });
const greeter = await app.refer(Greeter, { url: `tri://127.0.0.1:${port}`, timeout: 2000 });
process.stdout.write(`${await greeter.sayHello('idle')}\n`);
