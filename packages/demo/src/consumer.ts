// The tour's consumer process: refers Greeter from the embedded registry with a fail mock, and runs the calls the
// tour asks for, reporting each outcome.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { RpcError, WeftApplication } from '@weft/core';

import { Greeter, type Command, type Outcome } from './greeter.js';

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
process.send?.({ type: 'ready', detail: 'referred org.weft.demo.Greeter twice (plain, and with a fail mock)' });

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
