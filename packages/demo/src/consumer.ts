// The tour's consumer process: refers Greeter from the embedded registry with a fail mock, and runs the calls the
// tour asks for, reporting each outcome.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { RpcError, WeftApplication } from '@weft/core';

import { Forecast, Greeter, type Command, type Outcome } from './greeter.js';

const [registry] = process.argv.slice(2) as [string];
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const app = await WeftApplication.start({ root, name: 'demo-consumer', registry });
// Two references to the same service: one plain, one guarded by a fail mock.
const plain = await app.refer(Greeter, { retries: 0, timeout: 1500 });
const guarded = await app.refer(Greeter, {
  retries: 0,
  timeout: 1500,
  mock: 'fail:return "Hello from the fallback: the provider is unavailable"',
});
const forecast = await app.refer(Forecast, { timeout: 3000 });
process.send?.({ type: 'ready', detail: 'referred org.weft.demo.Greeter twice (plain, and with a fail mock) and weft.demo.v1.Forecast' });

process.on('message', (command: Command) => {
  void (async () => {
    if (command.type === 'stop') {
      await app.shutdown({ timeout: 2000 });
      process.send?.({ type: 'result', id: command.id });
      process.exit(0);
    }
    if (command.type === 'mock-setting') {
      const url = app.getReferenceUrl(plain);
      process.send?.({ type: 'result', id: command.id, value: url?.getMethodParameter('sayHello', 'mock') ?? null });
      return;
    }
    if (command.type === 'forecast') {
      try {
        const now = await forecast.current({ city: command.city });
        const days: string[] = [];
        // A server stream: one message per turn of the loop, as the provider yields them.
        for await (const day of forecast.days({ city: command.city, days: command.days })) {
          days.push(`day ${day.index}: ${day.summary}, ${day.low}…${day.high} °C`);
        }
        const outcomes: Outcome[] = [
          { ok: true, value: `${now.city}: ${now.summary}, ${now.celsius} °C (a ${now.$typeName} message)` },
          ...days.map((value) => ({ ok: true as const, value })),
        ];
        process.send?.({ type: 'result', id: command.id, outcomes });
      } catch (error) {
        const failure = error instanceof RpcError ? { code: error.code, message: error.message } : { code: 'biz', message: String(error) };
        process.send?.({ type: 'result', id: command.id, outcomes: [{ ok: false, ...failure }] });
      }
      return;
    }
    const outcomes: Outcome[] = [];
    const greeter = command.reference === 'plain' ? plain : guarded;
    for (let i = 0; i < command.times; i++) {
      try {
        const value =
          command.method === 'count' ? await greeter.count() : await greeter.sayHello(String(command.args[0] ?? 'world'));
        outcomes.push({ ok: true, value });
      } catch (error) {
        outcomes.push(
          error instanceof RpcError
            ? { ok: false, code: error.code, message: error.message }
            : { ok: false, code: 'biz', message: (error as Error).message },
        );
      }
    }
    process.send?.({ type: 'result', id: command.id, outcomes });
  })();
});
