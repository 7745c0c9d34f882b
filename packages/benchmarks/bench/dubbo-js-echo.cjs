// apache-dubbo-js's client (DirectlyDubbo: one connection, no registry) calling the Weft provider's dubbo:// echo,
// 64 in flight: node dubbo-js-echo.cjs <port> <calls>. Prints { callsPerSecond }.
const { DirectlyDubbo, java } = require('apache-dubbo-js');

const [port, calls] = process.argv.slice(2).map(Number);
const dubbo = DirectlyDubbo.from({ dubboAddress: `127.0.0.1:${port}`, dubboVersion: '2.0.2', dubboInvokeTimeout: 10 });
const echo = dubbo.proxyService({ dubboInterface: 'org.acme.EchoService', version: '0.0.0', methods: { echo: (text) => [java.String(text)] } });

async function run(total) {
  let sent = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (sent < total) {
      sent++;
      const { res, err } = await echo.echo('hello');
      if (err) throw err;
      if (res !== 'hello') throw new Error(`echo answered ${res}`);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
}

(async () => {
  await run(Math.min(5000, calls));
  const callsPerSecond = await run(calls);
  process.stdout.write(`${JSON.stringify({ callsPerSecond })}\n`);
  process.exit(0);
})().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
