import {
  defineService,
  Filter,
  Protocol,
  Serialization,
  URL,
  WeftApplication,
  type CallableProxy,
  type ExportOptions,
  type Invocation,
  type Invoker,
  type ReferOptions,
  type Result,
  type ServiceImplementation,
} from '@weft/core';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

import { FakeHessian } from './fake-hessian.js';

/** A business error the Greeter declares. */
export class Declined extends Error {
  /** The Java class it travels as (a Java consumer instantiates it; a Weft consumer rebuilds `Declined`). */
  static readonly javaClass = 'org.acme.DeclinedException';
  static readonly fields = { reason: String };
  override name = 'Declined';
  reason: string | undefined;
}

/** The service the tests export over dubbo. */
export const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  add: { args: [Number, Number], returns: Number },
  join: { args: [[String]], returns: String },
  decline: { args: [String], throws: [Declined] },
  crash: { args: [String] },
  sleep: { args: [Number], returns: Number },
  repeat: { args: [String, Number], returns: String },
  notify: { args: [String] },
  nothing: {},
});

/** The Greeter's implementation; `notify` records what it was told in `told`. */
export function greeterImpl(told: string[] = []): ServiceImplementation<typeof Greeter.methods> {
  return {
    sayHello: (name) => `hello ${name}`,
    add: (a, b) => a + b,
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
    repeat: (what, times) => what.repeat(times),
    notify: (what) => {
      told.push(what);
    },
    nothing: () => undefined,
  };
}

/** Records the invocations a provider chain sees. */
export function recordingFilter(seen: Invocation[]): new () => Filter {
  return class RecordingFilter extends Filter {
    invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
      seen.push(invocation);
      return invoker.invoke(invocation);
    }
  };
}

export const BASE_PACKAGES = ['@weft/core', '@weft/cluster', '@weft/protocol-dubbo', '@weft/filter-echo', '@weft/filter-token'] as const;
/** The same with the real Hessian2 codec (`@weft/serialization-hessian2`) instead of the test one. */
export const HESSIAN_PACKAGES = [...BASE_PACKAGES, '@weft/serialization-hessian2'] as const;

/** Test applications of one test file (the fake `hessian2` codec registered in each), shut down by {@link Harness.close}. */
export class Harness {
  readonly apps: WeftApplication[] = [];
  readonly logger = new RecordingLogger();
  private testApp: TestApp | undefined;
  private readonly closers: (() => void | Promise<void>)[] = [];

  constructor(
    private readonly packages: readonly string[] = BASE_PACKAGES,
    private readonly fake = true,
  ) {}

  get root(): string {
    return (this.testApp ??= createTestApp(this.packages, { prefix: 'weft-dubbo-test' })).root;
  }

  async start(name: string, options: { readonly registry?: string } = {}): Promise<WeftApplication> {
    const app = await WeftApplication.start({ root: this.root, name, logger: this.logger, ...options });
    if (this.fake) {
      const serializations = app.model.getExtensionLoader(Serialization);
      if (!serializations.hasExtension('hessian2')) serializations.addExtension('hessian2', FakeHessian);
    }
    this.apps.push(app);
    return app;
  }

  /** A provider exporting the Greeter over dubbo (recording its invocations) and a consumer referring it directly. */
  async pair(options: { readonly export?: ExportOptions; readonly refer?: ReferOptions; readonly told?: string[] } = {}): Promise<Pair> {
    const port = await freePort();
    const seen: Invocation[] = [];
    const provider = await this.start('provider-app');
    provider.model.getExtensionLoader(Filter).addExtension('recorder', recordingFilter(seen), { activate: { group: 'provider' } });
    await provider.export(Greeter, greeterImpl(options.told), { protocol: 'dubbo', port, ...options.export });
    const consumer = await this.start('consumer-app');
    const greeter = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, retries: 0, timeout: 3000, ...options.refer });
    return { provider, consumer, greeter, port, seen };
  }

  /** A bare dubbo invoker (no cluster), to look at `isAvailable()`. */
  async referInvoker(app: WeftApplication, port: number, parameters: Record<string, string> = {}): Promise<Invoker> {
    const url = new URL({ protocol: 'dubbo', host: '127.0.0.1', port, path: Greeter.name, parameters: { interface: Greeter.name, application: app.name, ...parameters } });
    return app.model.getExtensionLoader(Protocol).getExtension('dubbo').refer(Greeter, url);
  }

  onClose(close: () => void | Promise<void>): void {
    this.closers.push(close);
  }

  async close(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close();
    await Promise.allSettled(this.apps.splice(0).map((app) => app.shutdown({ timeout: 2000 })));
    this.testApp?.cleanup();
    this.testApp = undefined;
  }
}

export interface Pair {
  readonly provider: WeftApplication;
  readonly consumer: WeftApplication;
  readonly greeter: CallableProxy<typeof Greeter.methods>;
  readonly port: number;
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

export { freePort };
