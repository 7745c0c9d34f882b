import type { AttachmentValue } from '../rpc/invocation.js';
import { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import { PendingResult } from '../rpc/pending-result.js';
import { Result } from '../rpc/result.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { isStreamSource, StreamPort } from '../rpc/stream-port.js';
import type { URL } from '../rpc/url.js';
import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import type { ExtensionLoader } from '../extension/extension-loader.js';
import { InjectLoader } from '../extension/injector.js';
import { Serialization, type MethodCopier } from '../serialization/serialization.js';
import { errorFromData, errorToData } from '../service/error-data.js';
import { Realizer } from '../service/realizer.js';
import type { MethodDescriptor, ServiceDefinition } from '../service/service-definition.js';
import { AbstractInvoker } from './abstract-invoker.js';
import { Exporter } from './exporter.js';
import { Protocol } from './protocol.js';
import { ServiceInvoker } from './service-invoker.js';
import { maskSecrets } from '../common/mask-secrets.js';

/**
 * The services exported over injvm in one application, by service key. Every change bumps `version`, so an
 * invoker can keep the exporter it found and only look it up again after a change: a lookup by a service key
 * built by another code path is a string comparison, not an identity check, on every call.
 */
class ExporterTable {
  private readonly byKey = new Map<string, InjvmExporter>();
  version = 0;

  get(key: string): InjvmExporter | undefined {
    return this.byKey.get(key);
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  set(key: string, exporter: InjvmExporter): void {
    this.byKey.set(key, exporter);
    this.version++;
  }

  delete(key: string): void {
    if (this.byKey.delete(key)) this.version++;
  }

  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  values(): IterableIterator<InjvmExporter> {
    return this.byKey.values();
  }
}

class InjvmExporter extends Exporter {
  private unexported = false;
  /** The provider's token, which an in-process consumer sends as a remote one learns it from the provider URL. */
  readonly token: string | undefined;
  /** The implementation's invoker when it is the exported one (no provider filter, no token): nothing else sees the invocation. */
  readonly bare: ServiceInvoker | undefined;

  constructor(
    private readonly invoker: Invoker,
    private readonly key: string,
    private readonly registry: ExporterTable,
    /** False when the export URL says `copy=false`: calls to this provider are zero-copy. */
    readonly copy: boolean,
  ) {
    super();
    this.token = invoker.getUrl().getParameter('token') || undefined;
    this.bare = invoker instanceof ServiceInvoker && this.token === undefined ? invoker : undefined;
  }

  getInvoker(): Invoker {
    return this.invoker;
  }

  async unexport(): Promise<void> {
    if (this.unexported) return;
    this.unexported = true;
    if (this.registry.get(this.key) === this) this.registry.delete(this.key);
    await this.invoker.destroy();
  }
}

/** Copies values across the in-process boundary exactly as a remote trip would change them. */
interface Copier {
  args(invocation: Invocation): unknown[];
  result(result: Result, invocation: Invocation): Result;
  /** One streamed response message. */
  message(value: unknown, invocation: Invocation): unknown;
}

class SerializingCopier implements Copier {
  private lastMethod: MethodDescriptor | undefined = undefined;
  private lastCopier: MethodCopier | undefined = undefined;

  constructor(
    private readonly serialization: Serialization,
    /** The protocol's realiser: each method's declared types are compiled once. */
    private readonly realizer: Realizer,
  ) {}

  args(invocation: Invocation): unknown[] {
    const method = invocation.method;
    const stream = method?.stream;
    if (stream === 'client' || stream === 'bidi') {
      // The requests are copied one by one, as they are read.
      const requests = invocation.args[0];
      if (!isStreamSource(requests)) return [requests];
      return [mapStream(requests, (request) => this.copyArgs([request], method)[0])];
    }
    return this.copyArgs(invocation.args, method);
  }

  message(value: unknown, invocation: Invocation): unknown {
    const method = invocation.method;
    // An IDL message is copied as a whole by its IDL serialization: there is no declared type to realise.
    if (method === undefined || method.idl !== undefined) return this.serialization.copy(value);
    return this.copierOf(method).result(value);
  }

  private copyArgs(args: readonly unknown[], method: MethodDescriptor | undefined): unknown[] {
    if (method === undefined || method.idl !== undefined) return this.serialization.copy(args) as unknown[];
    return this.copierOf(method).args(args);
  }

  /** The method's copier, behind a one-entry cache (a call copies its arguments, then its result, with it). */
  private copierOf(method: MethodDescriptor): MethodCopier {
    if (method === this.lastMethod) return this.lastCopier as MethodCopier;
    const copier = this.serialization.copier(method);
    this.lastMethod = method;
    this.lastCopier = copier;
    return copier;
  }

  /** Compiles `method`'s copier now (a malformed declaration fails the refer, not the first call). */
  prepare(method: MethodDescriptor): void {
    this.realizer.method(method);
    this.serialization.copier(method);
  }

  result(result: Result, invocation: Invocation): Result {
    const method = invocation.method;
    let copy: Result;
    if (result.hasException()) {
      copy = Result.ofException(errorFromData(this.serialization.copy(errorToData(result.exception)) as never, method?.throws));
    } else {
      const value = result.value;
      copy = Result.of(
        method === undefined || method.idl !== undefined
          ? value === undefined
            ? undefined
            : this.serialization.copy(value)
          : this.copierOf(method).result(value),
      );
    }
    if (result.hasAttachments()) for (const [key, value] of result.getAttachments()) copy.setAttachment(key, value);
    return copy;
  }
}

/** Hands `provided` to the provider chain; its clock reading is valid for this synchronous dispatch only. */
function dispatch(exporter: InjvmExporter, provided: Invocation): Result | Promise<Result> {
  const answer = exporter.getInvoker().invoke(provided);
  provided.startedAt = undefined;
  return answer;
}

/** `source`, each value mapped by `map` as it is read (a `break` of the reader returns `source`). */
async function* mapStream(source: AsyncIterable<unknown> | Iterable<unknown>, map: (value: unknown) => unknown): AsyncGenerator<unknown, void, undefined> {
  for await (const value of source) yield map(value);
}

class InjvmInvoker extends AbstractInvoker {
  private readonly key: string;
  /** The exporter found for `key` when the table was at `seenVersion` (looked up again after any change). */
  private exporter: InjvmExporter | undefined = undefined;
  private seenVersion = -1;

  constructor(
    private readonly service: ServiceDefinition,
    url: URL,
    private readonly exporters: ExporterTable,
    private readonly copier: Copier | undefined,
  ) {
    super(url);
    this.key = url.getServiceKey() ?? service.name;
  }

  override isAvailable(): boolean {
    return super.isAvailable() && this.exporters.has(this.key);
  }

  protected doInvoke(invocation: Invocation): Result | Promise<Result> {
    const exporter = this.seenVersion === this.exporters.version ? this.exporter : this.lookUp();
    if (exporter === undefined) return this.noProvider();
    // A bare implementation (no provider filter, no token) reads only the method name and arguments: nothing on
    // the provider side can observe the invocation, so it needs no provider-side copy.
    const bare = exporter.bare;
    if (bare !== undefined && (this.copier === undefined || !exporter.copy)) return bare.invoke(invocation);
    return this.invokeProvider(exporter, invocation);
  }

  /** The exporter of `key` now (kept until the table changes). */
  private lookUp(): InjvmExporter | undefined {
    this.exporter = this.exporters.get(this.key);
    this.seenVersion = this.exporters.version;
    return this.exporter;
  }

  private invokeProvider(exporter: InjvmExporter, invocation: Invocation): Result | Promise<Result> {
    if (exporter.copy && this.copier !== undefined) return this.invokeCopying(exporter, invocation, this.copier);
    return dispatch(exporter, this.provided(exporter, invocation, invocation.args));
  }

  /** The provider side's own invocation: attachments it adds never leak back into the consumer's. */
  private provided(exporter: InjvmExporter, invocation: Invocation, args: unknown[]): Invocation {
    const provided = Invocation.of(invocation.methodName, args, invocation.service ?? this.service);
    provided.deadline = invocation.deadline;
    // The consumer's clock reading, taken as it armed the deadline a moment ago: the call arrives in the same
    // instant. Valid for the synchronous dispatch only (`dispatch` clears it).
    provided.startedAt = invocation.startedAt;
    const signal = invocation.signal;
    if (signal !== undefined) provided.signal = signal;
    if (invocation.hasAttachments()) invocation.copyAttachmentsTo(provided);
    if (exporter.token !== undefined && !provided.hasAttachment('token')) provided.setAttachment('token', exporter.token);
    const port = StreamPort.of(invocation);
    if (port !== undefined) {
      // The provider's responses reach the consumer's port (copied one by one); the consumer's close reaches back.
      const providedPort = StreamPort.attach(provided);
      const copier = exporter.copy ? this.copier : undefined;
      void providedPort.opened.then((source) =>
        port.open(copier === undefined ? source : mapStream(source, (value) => copier.message(value, provided))),
      );
      void port.closed.then((reason) => providedPort.close(reason));
    }
    return provided;
  }

  private invokeCopying(exporter: InjvmExporter, invocation: Invocation, copier: Copier): Result | Promise<Result> {
    const bare = exporter.bare;
    if (bare !== undefined && !bare.streams(invocation.methodName)) {
      // Nothing on the provider side observes the invocation: no provided copy of it, one pending result.
      return bare.invokeCopied(invocation, copier.args(invocation), copier);
    }
    const provided = this.provided(exporter, invocation, copier.args(invocation));
    const answer = dispatch(exporter, provided);
    if (answer instanceof Result) return copier.result(answer, provided);
    // A closure, not a subclass of PendingResult: more classes would make every pending result's call sites megamorphic.
    return answer.then((result) => copier.result(result, provided));
  }

  private noProvider(): Promise<Result> {
    return Promise.reject(
      new RpcError(
        RpcErrorCode.NO_INVOKER,
        `No injvm provider of ${this.key} in this application (exported: ${[...this.exporters.keys()].join(', ') || 'none'}).`,
      ),
    );
  }
}

/**
 * The in-process protocol (`injvm`): exports and refers services within one application.
 *
 * @remarks
 * Extension `injvm` of `weft.rpc.Protocol` (the default protocol). Calls behave as remote ones do: arguments,
 * results and business errors are **copied** through the codec named by the URL key `serialization` (default
 * `json`; for an IDL service, the `IdlSerialization` its methods name) and realised against the method's declared
 * types, so a service behaves the same in-process and over
 * the network; timeouts, deadlines and cancellation apply as for any consumer invoker. `copy=false` on the
 * reference URL (for that reference) or on the export URL (for every caller of that provider) opts out:
 * arguments, results and business errors are passed by reference (zero-copy). Exporters are
 * per application; exporting the same service key twice is an error. A referred invoker is available while its
 * service is exported.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl);                      // injvm by default
 * const greeter = await app.refer(Greeter, { parameters: { copy: 'false' } });
 * ```
 */
export class InjvmProtocol extends Protocol {
  private readonly exporters = new ExporterTable();
  private readonly realizer = new Realizer();

  constructor(@InjectLoader(Serialization) private readonly serializations: ExtensionLoader<Serialization>) {
    super();
  }

  getDefaultPort(): number {
    return 0;
  }

  /** In-process calls cross no network: `ssl-enabled=true` is honoured trivially (nothing is sent in plaintext). */
  override supportsTls(): boolean {
    return true;
  }

  async export(invoker: Invoker): Promise<Exporter> {
    const url = invoker.getUrl();
    const key = url.getServiceKey();
    if (key === undefined) {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `Cannot export ${maskSecrets(url)} over injvm: it names no service.`);
    }
    if (this.exporters.has(key)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `Service ${key} is already exported over injvm in this application; export it once, or give it another group or version.`,
      );
    }
    const exporter = new InjvmExporter(invoker, key, this.exporters, url.getParameter('copy', true));
    this.exporters.set(key, exporter);
    return exporter;
  }

  async refer(service: ServiceDefinition, url: URL): Promise<Invoker> {
    const copy = url.getParameter('copy', true);
    // An IDL (protobuf) service is copied by its IDL serialization (messages hold bigints and bytes JSON would lose).
    const idl = [...service.methodDescriptors.values()].find((m) => m.idl !== undefined)?.idl?.serialization;
    const copier: SerializingCopier | undefined = copy ? new SerializingCopier(this.serializations.getExtension(idl ?? url.getParameter('serialization', 'json')), this.realizer) : undefined;
    // Compiled now: a malformed `fields` declaration fails the refer, not the first call.
    if (copier !== undefined) for (const method of service.methodDescriptors.values()) if (method.idl === undefined) copier.prepare(method);
    return new InjvmInvoker(service, url, this.exporters, copier);
  }

  async destroy(): Promise<void> {
    await Promise.all([...this.exporters.values()].map((e) => e.unexport()));
  }
}
