// A Weft consumer of the dubbo:// echo bench in its own process (as the apache-dubbo-js client is), 64 in flight:
//   node dubbo-weft-echo.mjs <app root> <dubbo|tri> <port> <calls>. Prints { callsPerSecond }.
import { defineService, Logger, WeftApplication } from '@weft/core';

const [root, protocol, port, calls] = process.argv.slice(2);
const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();
const EchoService = defineService('org.acme.EchoService', { echo: { args: [String], returns: String } });
const app = await WeftApplication.start({ root, name: `echo-consumer-${protocol}`, logger: silent });
const echo = await app.refer(EchoService, { url: `${protocol}://127.0.0.1:${port}`, timeout: 10_000 });

async function run(total) {
  let sent = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (sent < total) {
      sent++;
      const answer = await echo.echo('hello');
      if (answer !== 'hello') throw new Error(`echo answered ${answer}`);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
}

await run(Math.min(5000, Number(calls)));
const callsPerSecond = await run(Number(calls));
process.stdout.write(`${JSON.stringify({ callsPerSecond })}\n`);
await app.shutdown({ timeout: 500 });
process.exit(0);
