// Shared test scaffolding: a real framework built from this package's manifests, fake providers, a directory
// whose provider list can change, and a logger that records what it is told.
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

import {
  Cluster,
  defineService,
  Directory,
  FrameworkModel,
  Invocation,
  Invoker,
  LoadBalance,
  Logger,
  RandomSource,
  Result,
  RpcError,
  RpcErrorCode,
  URL,
  type ApplicationModel,
  type InvocationInit,
  type ServiceDefinition,
} from '@weft/core';

export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  sayBye: { args: [String], returns: String },
});

export interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly error: unknown;
}

/** Records every log call. */
export class RecordingLogger extends Logger {
  readonly entries: LogEntry[] = [];
  debug(message: string): void {
    this.entries.push({ level: 'debug', message, error: undefined });
  }
  info(message: string): void {
    this.entries.push({ level: 'info', message, error: undefined });
  }
  warn(message: string, error?: unknown): void {
    this.entries.push({ level: 'warn', message, error });
  }
  error(message: string, error?: unknown): void {
    this.entries.push({ level: 'error', message, error });
  }
  messages(level: LogEntry['level']): string[] {
    return this.entries.filter((e) => e.level === level).map((e) => e.message);
  }
  clear(): void {
    this.entries.length = 0;
  }
}

export interface Harness {
  readonly framework: FrameworkModel;
  readonly app: ApplicationModel;
  readonly logger: RecordingLogger;
  cluster(name: string): Cluster;
  loadBalance(name: string): LoadBalance;
  destroy(): Promise<void>;
}

/** A framework rooted at this package, one application, Cluster and LoadBalance loaded, seeded randomness. */
export async function createHarness(seed = 42): Promise<Harness> {
  const logger = new RecordingLogger();
  const framework = FrameworkModel.create({ root: packageRoot, logger });
  const app = framework.newApplication('t');
  await app.loadExtensions(Cluster, LoadBalance);
  logger.clear(); // discovery's debug lines belong to the set-up, not to the test
  app.registerService(RandomSource, RandomSource.seeded(seed));
  return {
    framework,
    app,
    logger,
    cluster: (name) => app.getExtensionLoader(Cluster).getExtension(name),
    loadBalance: (name) => app.getExtensionLoader(LoadBalance).getExtension(name),
    destroy: () => framework.destroy(),
  };
}

export type Behaviour = (invocation: Invocation, call: number, invoker: FakeInvoker) => Result | Promise<Result>;

/** A provider whose behaviour the test decides; records its calls. */
export class FakeInvoker extends Invoker {
  readonly invocations: Invocation[] = [];
  available = true;
  destroyed = false;

  constructor(readonly url: URL, public behaviour: Behaviour = succeed()) {
    super();
  }

  get calls(): number {
    return this.invocations.length;
  }

  getUrl(): URL {
    return this.url;
  }

  override isAvailable(): boolean {
    return this.available && !this.destroyed;
  }

  invoke(invocation: Invocation): Result | Promise<Result> {
    this.invocations.push(invocation);
    return this.behaviour(invocation, this.invocations.length, this);
  }

  override destroy(): void {
    this.destroyed = true;
  }
}

/** Resolves with `value` (default: the provider's address). */
export function succeed(value?: unknown): Behaviour {
  return (_invocation, _call, invoker) => Promise.resolve(Result.of(value === undefined ? invoker.url.getAddress() : value));
}

/** Answers at once with a completed `Result` of `value` (default: the provider's address) — no promise. */
export function succeedSync(value?: unknown): Behaviour {
  return (_invocation, _call, invoker) => Result.of(value === undefined ? invoker.url.getAddress() : value);
}

/** Answers at once with a completed `Result` carrying a business error — no promise. */
export function bizResultSync(error: unknown): Behaviour {
  return () => Result.ofException(error);
}

/** Rejects with an RpcError of `code`. */
export function reject(code: RpcErrorCode = RpcErrorCode.NETWORK, message = `provider failed with ${code}`): Behaviour {
  return () => Promise.reject(new RpcError(code, message));
}

/** Resolves with a Result carrying a business error. */
export function bizResult(error: unknown): Behaviour {
  return () => Promise.resolve(Result.ofException(error));
}

/** Throws synchronously, before any promise exists. */
export function throwSync(error: unknown): Behaviour {
  return () => {
    throw error;
  };
}

/** Resolves (or rejects) after `ms` milliseconds. */
export function after(ms: number, outcome: Behaviour): Behaviour {
  return (invocation, call, invoker) =>
    new Promise((resolve) => setTimeout(resolve, ms)).then(() => outcome(invocation, call, invoker));
}

/** Never settles. */
export function hang(): Behaviour {
  return () => new Promise<Result>(() => {});
}

/** A provider URL of org.acme.Greeter at `host:port`, with extra parameters. */
export function providerUrl(address: string, params: Record<string, string | number> = {}): URL {
  return URL.parse(`dubbo://${address}/org.acme.Greeter`).addParameters(params);
}

/** Fake providers at 10.0.0.1:20880, 10.0.0.2:20880, … */
export function providers(count: number, behaviour?: Behaviour, params: Record<string, string | number> = {}): FakeInvoker[] {
  return Array.from({ length: count }, (_, i) => new FakeInvoker(providerUrl(`10.0.0.${i + 1}:20880`, params), behaviour));
}

/** The consumer URL of org.acme.Greeter, with extra parameters. */
export function consumerUrl(params: Record<string, string | number | boolean> = {}): URL {
  return URL.parse('consumer://10.0.0.99/org.acme.Greeter?interface=org.acme.Greeter&side=consumer').addParameters(params);
}

/** A directory whose provider list and URL tests can change between calls. */
export class MutableDirectory extends Directory {
  private destroyed = false;
  listCalls = 0;

  constructor(public invokers: Invoker[], public url: URL = consumerUrl(), readonly service: ServiceDefinition = Greeter) {
    super();
  }

  getUrl(): URL {
    return this.url;
  }
  getConsumerUrl(): URL {
    return this.url;
  }
  list(_invocation: Invocation): readonly Invoker[] {
    this.listCalls++;
    return this.invokers;
  }
  getAllInvokers(): readonly Invoker[] {
    return this.invokers;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  async destroy(): Promise<void> {
    this.destroyed = true;
    await Promise.all(this.invokers.map((i) => i.destroy()));
  }
}

export function invocation(init: Partial<InvocationInit> = {}): Invocation {
  return new Invocation({ methodName: 'sayHello', args: ['world'], ...init });
}

/** Rejection of an answer, failing the test when it resolves (or is a completed `Result`). */
export async function rejectionOf(answer: Result | Promise<unknown>): Promise<RpcError> {
  try {
    await answer;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw new Error(`expected an RpcError, got ${String(error)}`);
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** How many times each invoker was picked when `pick` runs `n` times. */
export function tally(invokers: readonly Invoker[], n: number, pick: () => Invoker): number[] {
  const counts = invokers.map(() => 0);
  for (let i = 0; i < n; i++) {
    const index = invokers.indexOf(pick());
    if (index < 0) throw new Error('picked an invoker outside the list');
    counts[index] = (counts[index] as number) + 1;
  }
  return counts;
}

/** Always picks the first provider it is offered (deterministic selection for tests). */
export class FirstLoadBalance extends LoadBalance {
  readonly offered: Invoker[][] = [];
  select(invokers: readonly Invoker[]): Invoker {
    this.offered.push([...invokers]);
    return invokers[0] as Invoker;
  }
}

/** Always picks the last provider it is offered. */
export class LastLoadBalance extends LoadBalance {
  select(invokers: readonly Invoker[]): Invoker {
    return invokers[invokers.length - 1] as Invoker;
  }
}

/** Registers `first` and `last` load balances in the harness application. */
export function addPickers(h: Harness): { first: FirstLoadBalance; last: LastLoadBalance } {
  const loader = h.app.getExtensionLoader(LoadBalance);
  loader.addExtension('first', FirstLoadBalance).addExtension('last', LastLoadBalance);
  return { first: loader.getExtension('first') as FirstLoadBalance, last: loader.getExtension('last') as LastLoadBalance };
}
