// The Weft provider of the dubbo:// echo bench, in its own process: node dubbo-echo-provider.mjs <app root> <dubbo port> <tri port>.
// Exports org.acme.EchoService (an async implementation) on dubbo and on tri, default configuration; prints "ready".
import { defineService, Logger, WeftApplication } from '@weft/core';

const [root, dubboPort, triPort] = process.argv.slice(2);
const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();
const EchoService = defineService('org.acme.EchoService', { echo: { args: [String], returns: String } });
const app = await WeftApplication.start({ root, name: 'echo-provider', logger: silent });
const impl = { echo: async (text) => text };
await app.export(EchoService, impl, { protocol: 'dubbo', port: Number(dubboPort) });
await app.export(EchoService, impl, { protocol: 'tri', port: Number(triPort) });
process.stdout.write('ready\n');
process.stdin.resume();
process.stdin.on('end', () => app.shutdown({ timeout: 1000 }).then(() => process.exit(0)));
