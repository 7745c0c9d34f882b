// A provider in its own process, for the cross-process tests:
//   node provider-process.mjs <app root> <port> '<export options JSON>'
// Starts a WeftApplication on <app root>, exports org.acme.Greeter over tri on 127.0.0.1:<port> with the given
// export options (parameters, methods, timeout), prints "ready" on stdout, and shuts down on SIGTERM.
import { defineService, WeftApplication } from '@weft/core';

const [root, port, optionsJson] = process.argv.slice(2);
const options = JSON.parse(optionsJson ?? '{}');

class Declined extends Error {
  name = 'Declined';
}

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  add: { args: [Number, Number], returns: Number },
  decline: { args: [String], throws: [Declined] },
  sleep: { args: [Number], returns: Number },
  wait: { args: [Number], returns: Number },
});

const sleep = (ms) => new Promise((resolve) => setTimeout(() => resolve(ms), ms));
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const app = await WeftApplication.start({ root, name: `provider-${process.pid}`, logger: silent });
await app.export(
  Greeter,
  {
    sayHello: (name) => `hello ${name} from ${process.pid}`,
    add: (a, b) => a + b,
    decline: (why) => {
      throw new Declined(`declined: ${why}`);
    },
    sleep,
    wait: sleep,
  },
  { protocol: 'tri', host: '127.0.0.1', port: Number(port), ...options },
);
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  app.shutdown({ timeout: 2000 }).finally(() => process.exit(0));
});
