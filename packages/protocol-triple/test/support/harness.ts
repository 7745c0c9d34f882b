import {
  defineService,
  Filter,
  Invocation,
  Protocol,
  Result,
  RpcError,
  RpcErrorCode,
  URL,
  WeftApplication,
  type CallableProxy,
  type ExportOptions,
  type Invoker,
  type ReferOptions,
  type ServiceImplementation,
} from '@weft/core';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

/** A business error the Greeter declares. */
export class Declined extends Error {
  override name = 'Declined';
  reason: string | undefined;
}

/** A value class, realised on both sides. */
export class Item {
  name = '';
  price = 0;
  /** Only an instance of the class has this. */
  label(): string {
    return `${this.name} @ ${this.price}`;
  }
}

/** The service the tests export over tri. */
export const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  add: { args: [Number, Number], returns: Number },
  later: { args: [Date], returns: Date },
  item: { args: [Item], returns: Item },
  join: { args: [[String]], returns: String },
  decline: { args: [String], throws: [Declined] },
  crash: { args: [String] },
  sleep: { args: [Number], returns: Number },
  wait: { args: [Number], returns: Number },
  nothing: {},
});

/** The Greeter's implementation; `sleep` and `wait` answer after that many ms. */
export function greeterImpl(): ServiceImplementation<typeof Greeter.methods> {
  return {
    sayHello: (name) => `hello ${name}`,
    add: (a, b) => a + b,
    later: (when) => new Date(when.getTime() + 1000),
    item: (item) => Object.assign(new Item(), { name: item.label(), price: item.price * 2 }),
    join: (parts) => parts.join('+'),
    decline: (why) => {
      const error = new Declined(`declined: ${why}`);
      error.reason = why;
      throw error;
    },
    crash: (why) => {
      throw new TypeError(`crashed: ${why}`);
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)),
    wait: (ms) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)),
    nothing: () => undefined,
  };
}

/** Records the invocations a provider chain sees (added as an activated provider filter). */
export function recordingFilter(seen: Invocation[]): new () => Filter {
  return class RecordingFilter extends Filter {
    invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
      seen.push(invocation);
      return invoker.invoke(invocation);
    }
  };
}

/**
 * A provider filter (outermost) whose chain completes synchronously where it can: it records, per call, whether the
 * rest of the chain answered with a completed `Result` (`sync`) or a promise (`async`); answers
 * `sayHello('short')` itself with `Result.of('short-circuited')`; and throws `RpcError` `forbidden` synchronously
 * for `join`.
 */
export function synchronousFilter(answers: string[]): new () => Filter {
  return class SynchronousFilter extends Filter {
    invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
      if (invocation.methodName === 'join') throw new RpcError(RpcErrorCode.FORBIDDEN, 'no joins (thrown synchronously)');
      if (invocation.methodName === 'sayHello' && invocation.args[0] === 'short') return Result.of('short-circuited');
      const answer = invoker.invoke(invocation);
      answers.push(`${invocation.methodName} ${answer instanceof Result ? 'sync' : 'async'}`);
      return answer;
    }
  };
}

/** The packages every tri test application installs. */
export const BASE_PACKAGES = ['@weft/core', '@weft/cluster', '@weft/protocol-triple'] as const;

/** Test applications started by one test file, shut down by {@link Harness.close}. */
export class Harness {
  readonly apps: WeftApplication[] = [];
  readonly logger = new RecordingLogger();
  private testApp: TestApp | undefined;
  private readonly closers: (() => void | Promise<void>)[] = [];

  constructor(private readonly packages: readonly string[] = BASE_PACKAGES) {}

  /** The application root (created on first use). */
  get root(): string {
    return (this.testApp ??= createTestApp(this.packages, { prefix: 'weft-tri-test' })).root;
  }

  /** Starts an application on the test root. */
  async start(name: string): Promise<WeftApplication> {
    const app = await WeftApplication.start({ root: this.root, name, logger: this.logger });
    this.apps.push(app);
    return app;
  }

  /**
   * Starts a provider exporting the Greeter over tri (recording its invocations) and a consumer referring it.
   */
  async pair(
    options: {
      readonly export?: ExportOptions;
      readonly refer?: ReferOptions;
      readonly impl?: ServiceImplementation<typeof Greeter.methods>;
      readonly port?: number;
    } = {},
  ): Promise<Pair> {
    const port = options.port ?? (await freePort());
    const seen: Invocation[] = [];
    const provider = await this.start('provider-app');
    provider.model.getExtensionLoader(Filter).addExtension('recorder', recordingFilter(seen), { activate: { group: 'provider' } });
    await provider.export(Greeter, options.impl ?? greeterImpl(), { protocol: 'tri', port, ...options.export });
    const consumer = await this.start('consumer-app');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 3000, ...options.refer });
    return { provider, consumer, greeter, port, seen };
  }

  /** Refers a bare tri invoker (no cluster), to look at `isAvailable()`. */
  async referInvoker(app: WeftApplication, port: number, parameters: Record<string, string> = {}): Promise<Invoker> {
    const url = new URL({
      protocol: 'tri',
      host: '127.0.0.1',
      port,
      path: Greeter.name,
      parameters: { interface: Greeter.name, application: app.name, ...parameters },
    });
    return app.model.getExtensionLoader(Protocol).getExtension('tri').refer(Greeter, url);
  }

  /** Registers something (a peer server, a client, a child process) that {@link close} stops first, last in first out. */
  onClose(close: () => void | Promise<void>): void {
    this.closers.push(close);
  }

  /** Stops what {@link onClose} registered, shuts every application down and removes the root. */
  async close(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close();
    await Promise.allSettled(this.apps.splice(0).map((app) => app.shutdown({ timeout: 2000 })));
    this.testApp?.cleanup();
    this.testApp = undefined;
  }
}

/** A provider and a consumer of the Greeter over tri. */
export interface Pair {
  readonly provider: WeftApplication;
  readonly consumer: WeftApplication;
  readonly greeter: CallableProxy<typeof Greeter.methods>;
  readonly port: number;
  /** Invocations the provider chain received. */
  readonly seen: Invocation[];
}

/** Waits until `condition` holds (polling), or fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Records the `Result` of every call `app` makes as a consumer (its attachments are the peer's trailing metadata),
 * in call order.
 */
export function captureResults(app: WeftApplication): Result[] {
  const results: Result[] = [];
  class Capture extends Filter {
    async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
      const result = await invoker.invoke(invocation);
      results.push(result);
      return result;
    }
  }
  app.model.getExtensionLoader(Filter).addExtension('capture', Capture, { activate: { group: 'consumer' } });
  return results;
}
