import {
  ExtensionError,
  ExtensionErrorCode,
  IdlSerialization,
  Inject,
  InjectLoader,
  Logger,
  maskSecrets,
  ApplicationEvents,
  Protocol,
  ObjectSerialization,
  safeLog,
  Serialization,
  TlsMaterial,
  type Exporter,
  type ExtensionLoader,
  type Invoker,
  type ServiceDefinition,
  type URL,
} from '@weft/core/spi';

import { sessionMemory } from './session-memory.js';
import { TripleConnectionPool } from './client/connection-pool.js';
import { IdlCodec, type IdlFormat } from './codec/idl-codec.js';
import { SerializationCodec, type TripleCodec } from './codec/triple-codec.js';
import { WrapperCodec } from './codec/wrapper-codec.js';
import { TripleExporter, type ServerMethod } from './server/triple-exporter.js';
import { TripleInvoker } from './client/triple-invoker.js';
import { TripleDefaults, TripleKeys } from './triple-keys.js';
import { CorsPolicy } from './server/cors-policy.js';
import { TripleServer, type TripleServerOptions } from './server/triple-server.js';

/**
 * Dubbo 3's Triple protocol (`tri`): gRPC-compatible unary and streaming RPC over HTTP/2, plus plain JSON POSTs, on one port.
 *
 * @remarks
 * Extension `tri` of `weft.rpc.Protocol` (default port 50051), one instance per application, holding that
 * application's servers and connection pools (nothing is shared between applications).
 *
 * ```
 *  consumer proxy → cluster → consumer filters → TripleInvoker ──HTTP/2──▶ TripleServer → provider filters → impl
 *                                                 (pool per address,        (one per host:port, sniffs h2 / HTTP/1,
 *                                                  grpc-timeout, RST on       routes [group/]path[:version], codec,
 *                                                  deadline, reconnect)       tri-exception-code, GOAWAY on close)
 * ```
 *
 * - `export(invoker)` starts (or reuses) the server of the URL's host and port and registers the service there.
 *   Server settings come from the first export on the port: {@link TripleKeys}. The service's argument and result
 *   types come from the exported invoker (`invoker.getService()`, which filter chains pass through); an invoker that
 *   knows no service gets values as decoded.
 * - `refer(service, url)` returns a {@link TripleInvoker} on the pool of `url`'s address (shared by every reference
 *   to it); unless `lazy=true` it waits for the first connection attempt (at most `connect-timeout`), so
 *   `isAvailable()` is accurate at once — a provider that is down is referred anyway and reconnected in the background.
 * - Every server also answers the built-in `grpc.health.v1.Health` and server reflection (v1, v1alpha), outside the
 *   filter chain; keys `health` and `reflection` turn them off (README, "Health and reflection").
 * - `destroy()` shuts every server down gracefully and closes every pool.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, { protocol: 'tri', port: 50051 });
 * const greeter = await app.refer(Greeter, { url: 'tri://127.0.0.1:50051' });
 * ```
 */
export class TripleProtocol extends Protocol {
  private readonly servers = new Map<string, Promise<TripleServer>>();
  private readonly pools = new Map<string, TripleConnectionPool>();
  private readonly codecs = new Map<string, TripleCodec>();
  private destroyed = false;

  constructor(
    @InjectLoader(Serialization) private readonly serializations: ExtensionLoader<Serialization>,
    @Inject(Logger) private readonly logger: Logger,
    @Inject(ApplicationEvents) private readonly events: ApplicationEvents,
  ) {
    super();
  }

  getDefaultPort(): number {
    return TripleDefaults.PORT;
  }

  /** `tri` speaks TLS (ALPN `h2`) when a URL says `ssl-enabled=true`, mTLS with a trust collection. */
  override supportsTls(): boolean {
    return true;
  }

  async export(invoker: Invoker): Promise<Exporter> {
    this.assertAlive();
    const url = invoker.getUrl();
    const key = url.getPathKey();
    if (key === undefined || url.path === '') {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `Cannot export ${maskSecrets(url)} over tri: it names no service.`);
    }
    const service = invoker.getService();
    const idl = idlSerializationOf(service);
    const plain = idl === undefined ? this.codecOf(url) : undefined;
    // Compiled now: a malformed declaration fails the export, not the first call.
    if (plain !== undefined && service !== undefined) plain.prepare?.(service);
    // A wrapper (hessian2) export also answers Weft's JSON consumers (application/grpc+json) on the same path.
    const codecs =
      plain instanceof WrapperCodec
        ? [plain, this.codecOf(url.removeParameter(TripleKeys.SERIALIZATION))]
        : plain !== undefined
          ? [plain]
          : [this.idlCodecOf(url, idl as string, 'binary'), this.idlCodecOf(url, idl as string, 'json')];
    const server = await this.serverFor(url);
    const exporter = new TripleExporter({
      invoker,
      key,
      path: url.path,
      service,
      methods: methodsOf(url, service),
      codecs,
      plainCodec: idl === undefined ? undefined : codecs[1],
      unexport: (e) => this.unexport(e, server),
    });
    try {
      server.add(exporter);
    } catch (error) {
      if (server.isEmpty) await this.closeServer(server);
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, (error as Error).message, { cause: error });
    }
    return exporter;
  }

  async refer(service: ServiceDefinition, url: URL): Promise<Invoker> {
    this.assertAlive();
    const idl = idlSerializationOf(service);
    const plain = idl === undefined ? this.codecOf(url) : undefined;
    plain?.prepare?.(service);
    const codec = plain ?? this.idlCodecOf(url, idl as string, idlFormatOf(url, idl as string));
    const compression = compressionOf(url);
    const pool = this.poolFor(url);
    const invoker = new TripleInvoker({
      service,
      url,
      pool,
      codec,
      payload: url.getPositiveParameter(TripleKeys.PAYLOAD, TripleDefaults.PAYLOAD),
      compression,
    });
    if (!url.getParameter(TripleKeys.LAZY, TripleDefaults.LAZY)) {
      await pool.ready(url.getPositiveParameter(TripleKeys.CONNECT_TIMEOUT, TripleDefaults.CONNECT_TIMEOUT));
    }
    return invoker;
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    const servers = await Promise.allSettled([...this.servers.values()]);
    this.servers.clear();
    await Promise.allSettled(servers.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
    for (const pool of [...this.pools.values()]) pool.close();
    this.pools.clear();
  }

  private assertAlive(): void {
    if (this.destroyed) throw new ExtensionError(ExtensionErrorCode.DESTROYED, 'The tri protocol of this application has been destroyed.');
  }

  private codecOf(url: URL): TripleCodec {
    const name = url.getParameter(TripleKeys.SERIALIZATION, TripleDefaults.SERIALIZATION);
    let codec = this.codecs.get(name);
    if (codec === undefined) {
      if (!this.serializations.hasExtension(name)) {
        throw new ExtensionError(
          ExtensionErrorCode.INVALID_PARAMETER,
          `${url.getServiceKey() ?? url.path}: serialization=${name} names no weft.rpc.Serialization extension ` +
            `(available: ${this.serializations.getSupportedExtensions().join(', ')}).`,
        );
      }
      const serialization = this.serializations.getExtension(name);
      // A typed-value serialization (hessian2) speaks Dubbo's wire for interface services: the Triple wrapper (§A.10).
      codec =
        serialization instanceof ObjectSerialization
          ? new WrapperCodec(serialization, this.codecOf(url.removeParameter(TripleKeys.SERIALIZATION)))
          : new SerializationCodec(serialization);
      this.codecs.set(name, codec);
    }
    return codec;
  }

  /**
   * The codec of an IDL service: its methods' `IdlSerialization` (looked up by name, never imported) in one format,
   * with the URL's JSON codec for non-IDL methods (`$echo`).
   */
  private idlCodecOf(url: URL, name: string, format: IdlFormat): IdlCodec {
    const key = `idl:${name}:${format}`;
    const cached = this.codecs.get(key);
    if (cached !== undefined) return cached as IdlCodec;
    const where = url.getServiceKey() ?? url.path;
    if (!this.serializations.hasExtension(name)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where} is an IDL service encoded by the "${name}" serialization, but no weft.rpc.Serialization extension ` +
          `"${name}" is installed (available: ${this.serializations.getSupportedExtensions().join(', ')}). ` +
          `Install the package that provides it (for protobuf: npm install @weft/serialization-protobuf).`,
      );
    }
    const serialization = this.serializations.getExtension(name);
    if (!(serialization instanceof IdlSerialization)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: the "${name}" serialization cannot encode IDL messages (it is not an IdlSerialization).`,
      );
    }
    const codec = new IdlCodec(name, serialization, format, this.codecOf(url.removeParameter(TripleKeys.SERIALIZATION)));
    this.codecs.set(key, codec);
    return codec;
  }

  /** The server of the URL's listening address: `bind.ip`/`bind.port`, else its host and port. */
  private serverFor(url: URL): Promise<TripleServer> {
    const host = url.getParameter(BIND_IP, url.host);
    const port = url.getParameter(BIND_PORT, url.port);
    const address = `${host}:${port}`;
    const where = `export(${url.getServiceKey() ?? url.path})`;
    const existing = this.servers.get(address);
    if (existing !== undefined) return this.sameTransport(existing, url, where, address);
    const tls = TlsMaterial.forProvider(url, where, this.logger);
    const server = new TripleServer(host, port, serverOptions(url), this.logger, this.codecOf(url.removeParameter(TripleKeys.SERIALIZATION)), this.events, tls);
    const pending = server.listen().then(() => server);
    this.servers.set(address, pending);
    pending.catch(() => {
      tls?.close();
      if (this.servers.get(address) === pending) this.servers.delete(address);
    });
    return pending;
  }

  /** The server already on `address`, if `url` asks for the same transport (TLS settings, or plaintext) it speaks. */
  private async sameTransport(pending: Promise<TripleServer>, url: URL, where: string, address: string): Promise<TripleServer> {
    const server = await pending;
    const tls = TlsMaterial.forProvider(url, where, this.logger);
    const wanted = tls?.identity ?? 'plaintext';
    tls?.close();
    if (wanted !== server.transport) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: the tri port ${address} already serves other services ${server.tls === undefined ? 'in plaintext' : 'with other TLS settings'}, ` +
          `and this export asks for ${tls === undefined ? 'plaintext' : 'different TLS settings'}; services on one port share its transport ` +
          '(give this one the same ssl.* keys, or another port).',
      );
    }
    return server;
  }

  private async unexport(exporter: TripleExporter, server: TripleServer): Promise<void> {
    server.remove(exporter);
    if (server.isEmpty) {
      // The last service: the server's graceful close is the one wait (bounded by one shutdown-timeout in total).
      try {
        await this.closeServer(server);
      } finally {
        await exporter.invoker.destroy();
      }
      return;
    }
    const drained = await exporter.inflight.whenIdle(server.options.shutdownTimeout);
    if (!drained) {
      safeLog(this.logger, 'warn', `tri: unexport of ${exporter.key}: ${exporter.inflight.count} call(s) still in flight; unexporting anyway.`);
    }
    try {
      await exporter.invoker.destroy();
    } finally {
      if (server.isEmpty) await this.closeServer(server);
    }
  }

  private async closeServer(server: TripleServer): Promise<void> {
    const address = `${server.host}:${server.port}`;
    const current = this.servers.get(address);
    if (current !== undefined && (await current) === server) this.servers.delete(address);
    await server.close();
  }

  private poolFor(url: URL): TripleConnectionPool {
    const connections = url.getPositiveParameter(TripleKeys.CONNECTIONS, TripleDefaults.CONNECTIONS);
    const address = url.getAddress();
    const tls = TlsMaterial.forConsumer(url, `refer(${url.getServiceKey() ?? url.path}) → tri://${address}`, this.logger);
    const key = `${address}#${connections}#${tls?.identity ?? 'plaintext'}`;
    let pool = this.pools.get(key);
    if (pool !== undefined) tls?.close();
    if (pool === undefined) {
      const created: TripleConnectionPool = new TripleConnectionPool(
        {
          address,
          connections,
          connectTimeout: url.getPositiveParameter(TripleKeys.CONNECT_TIMEOUT, TripleDefaults.CONNECT_TIMEOUT),
          backoff: url.getPositiveParameter(TripleKeys.RECONNECT_BACKOFF, TripleDefaults.RECONNECT_BACKOFF),
          maxBackoff: url.getPositiveParameter(TripleKeys.RECONNECT_MAX_BACKOFF, TripleDefaults.RECONNECT_MAX_BACKOFF),
          heartbeat: url.getParameter(TripleKeys.HEARTBEAT, TripleDefaults.HEARTBEAT),
          maxHeaderListSize: url.getPositiveParameter(TripleKeys.MAX_HEADER_LIST_SIZE, TripleDefaults.MAX_HEADER_LIST_SIZE),
          initialWindowSize: windowSize(url, TripleKeys.INITIAL_WINDOW_SIZE, TripleDefaults.INITIAL_WINDOW_SIZE),
          connectionWindowSize: windowSize(url, TripleKeys.CONNECTION_WINDOW_SIZE, TripleDefaults.CONNECTION_WINDOW_SIZE),
          // Requests queued behind flow control count here: up to the provider's stream limit, `payload` each.
          maxSessionMemory: sessionMemory({
            payload: url.getPositiveParameter(TripleKeys.PAYLOAD, TripleDefaults.PAYLOAD),
            streams: TripleDefaults.MAX_CONCURRENT_STREAMS,
            window: windowSize(url, TripleKeys.INITIAL_WINDOW_SIZE, TripleDefaults.INITIAL_WINDOW_SIZE),
            buffered: 0,
          }),
          ...(tls === undefined ? {} : { tls }),
        },
        this.logger,
        () => {
          if (this.pools.get(key) === created) this.pools.delete(key);
        },
      );
      pool = created;
      this.pools.set(key, pool);
    }
    return pool.retain();
  }
}

/** Where a server listens (set by the application from `bind`/`host`; not registered). */
const BIND_IP = 'bind.ip';
const BIND_PORT = 'bind.port';

function serverOptions(url: URL): TripleServerOptions {
  return {
    payload: url.getPositiveParameter(TripleKeys.PAYLOAD, TripleDefaults.PAYLOAD),
    maxConcurrentStreams: url.getPositiveParameter(TripleKeys.MAX_CONCURRENT_STREAMS, TripleDefaults.MAX_CONCURRENT_STREAMS),
    maxHeaderListSize: url.getPositiveParameter(TripleKeys.MAX_HEADER_LIST_SIZE, TripleDefaults.MAX_HEADER_LIST_SIZE),
    resolveFallbackToDefault: url.getParameter(TripleKeys.RESOLVE_FALLBACK_TO_DEFAULT, TripleDefaults.RESOLVE_FALLBACK_TO_DEFAULT),
    shutdownTimeout: url.getPositiveParameter(TripleKeys.SHUTDOWN_TIMEOUT, TripleDefaults.SHUTDOWN_TIMEOUT),
    sniffTimeout: url.getPositiveParameter(TripleKeys.SNIFF_TIMEOUT, TripleDefaults.SNIFF_TIMEOUT),
    health: url.getParameter(TripleKeys.HEALTH, TripleDefaults.HEALTH),
    reflection: url.getParameter(TripleKeys.REFLECTION, TripleDefaults.REFLECTION),
    plainHttp: url.getParameter(TripleKeys.PLAIN_HTTP, TripleDefaults.PLAIN_HTTP),
    cors: CorsPolicy.parse(
      url.getParameter(TripleKeys.CORS_ALLOWED_ORIGINS),
      url.getParameter(TripleKeys.CORS_ALLOW_CREDENTIALS, TripleDefaults.CORS_ALLOW_CREDENTIALS),
      url.getPositiveParameter(TripleKeys.CORS_MAX_AGE, TripleDefaults.CORS_MAX_AGE),
      `export(${url.getServiceKey() ?? url.path})`,
    ),
    compression: compressionOf(url),
    maxConnectionBuffer: url.getPositiveParameter(TripleKeys.MAX_CONNECTION_BUFFER, TripleDefaults.MAX_CONNECTION_BUFFER),
    maxServerBuffer: url.getPositiveParameter(TripleKeys.MAX_SERVER_BUFFER, TripleDefaults.MAX_SERVER_BUFFER),
    idleTimeout: url.getPositiveParameter(TripleKeys.IDLE_TIMEOUT, TripleDefaults.IDLE_TIMEOUT),
    headerTimeout: url.getPositiveParameter(TripleKeys.HEADER_TIMEOUT, TripleDefaults.HEADER_TIMEOUT),
    bodyTimeout: url.getPositiveParameter(TripleKeys.BODY_TIMEOUT, TripleDefaults.BODY_TIMEOUT),
  };
}

/** The `compression` key: `identity` (none), `gzip` or `deflate`. @throws `ExtensionError` for another name. */
function compressionOf(url: URL): string | undefined {
  const name = url.getParameter(TripleKeys.COMPRESSION, TripleDefaults.COMPRESSION);
  if (name === 'identity' || name === '') return undefined;
  if (name === 'gzip' || name === 'deflate') return name;
  throw new ExtensionError(
    ExtensionErrorCode.INVALID_PARAMETER,
    `${url.getServiceKey() ?? url.path}: compression=${name} is not supported; use identity (the default), gzip or deflate.`,
  );
}

/** The `IdlSerialization` name of an IDL service (the first IDL method's), or `undefined` for other services. */
function idlSerializationOf(service: ServiceDefinition | undefined): string | undefined {
  if (service === undefined) return undefined;
  for (const descriptor of service.methodDescriptors.values()) if (descriptor.idl !== undefined) return descriptor.idl.serialization;
  return undefined;
}

/**
 * The wire format a consumer of an IDL service sends: binary protobuf (`application/grpc+proto`) unless the URL
 * says `serialization=json` (the protobuf JSON mapping, `application/grpc+json`).
 */
function idlFormatOf(url: URL, idl: string): IdlFormat {
  const named = url.getParameter(TripleKeys.SERIALIZATION);
  if (named === undefined || named === idl) return 'binary';
  if (named === 'json') return 'json';
  throw new ExtensionError(
    ExtensionErrorCode.INVALID_PARAMETER,
    `${url.getServiceKey() ?? url.path}: serialization=${named} cannot carry an IDL service; use serialization=${idl} (binary, the default) ` +
      'or serialization=json (the protobuf JSON mapping).',
  );
}

/** The methods a service answers: from its definition, else the URL's `methods` list (types unknown). */
function methodsOf(url: URL, service: ServiceDefinition | undefined): ReadonlyMap<string, ServerMethod> {
  const methods = new Map<string, ServerMethod>();
  if (service !== undefined) {
    for (const [name, descriptor] of service.methodDescriptors) methods.set(name, { name, descriptor });
    return methods;
  }
  const list = url.getParameter('methods') ?? '';
  for (const name of list.split(',')) {
    const trimmed = name.trim();
    if (trimmed !== '') methods.set(trimmed, { name: trimmed, descriptor: undefined });
  }
  return methods;
}

/** HTTP/2's smallest and largest window (RFC 9113 §6.9.1). */
const MIN_WINDOW = 65_535;
const MAX_WINDOW = 2 ** 31 - 1;

/** A window-size key, checked against HTTP/2's range. */
function windowSize(url: URL, key: string, fallback: number): number {
  const value = url.getPositiveParameter(key, fallback);
  if (value < MIN_WINDOW || value > MAX_WINDOW || !Number.isInteger(value)) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `tri reference ${url.getServiceKey() ?? url.path}: ${key}=${value} is not an HTTP/2 window size (an integer from ${MIN_WINDOW} to ${MAX_WINDOW} bytes; default ${fallback})`,
    );
  }
  return value;
}
