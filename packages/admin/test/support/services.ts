// The services the console tests govern, real Weft applications exporting them over `tri`.
import { defineService, RpcError, WeftApplication } from '@weft/core';
import { freePort, RecordingLogger } from '@weft/test-utils';

export const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
});

export interface GreeterClient {
  sayHello(name: string): Promise<string>;
  count(): Promise<number>;
}

/** A provider application whose answers name it (`hello ann from a`), counting its calls. */
export interface RunningProvider {
  readonly app: WeftApplication;
  readonly name: string;
  readonly address: string;
  calls: number;
}

export async function startProvider(root: string, registry: string, name: string, parameters: Record<string, string> = {}, application = `provider-${name}`): Promise<RunningProvider> {
  const app = await WeftApplication.start({ root, name: application, registry, logger: new RecordingLogger() });
  const port = await freePort();
  const running: RunningProvider = { app, name, address: `127.0.0.1:${port}`, calls: 0 };
  await app.export(
    Greeter,
    {
      sayHello: (who: string) => {
        running.calls++;
        return `hello ${who} from ${name}`;
      },
      count: () => {
        running.calls++;
        return 42;
      },
    },
    { protocol: 'tri', host: '127.0.0.1', port, parameters },
  );
  return running;
}

export async function startConsumer(root: string, registry: string, name = 'shop'): Promise<{ app: WeftApplication; greeter: GreeterClient }> {
  const app = await WeftApplication.start({ root, name, registry, logger: new RecordingLogger() });
  const greeter = (await app.refer(Greeter, { retries: 0, check: false })) as GreeterClient;
  return { app, greeter };
}

/** What a call answers: `ok: <value>`, or the error's code. */
export async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    return `ok: ${String(await call())}`;
  } catch (error) {
    return error instanceof RpcError ? error.code : (error as Error).name;
  }
}
