import {
  ExtensionError,
  ExtensionErrorCode,
  Inject,
  InjectLoader,
  Logger,
  Protocol,
  safeLog,
  Serialization,
  TlsKeys,
  TlsMaterial,
  type Exporter,
  type ExtensionLoader,
  type Invoker,
  type ServiceDefinition,
  type URL,
} from '@weft/core/spi';

import { DubboConnection } from './client/dubbo-connection.js';
import { DubboInvoker } from './client/dubbo-invoker.js';
import { DubboDefaults, DubboKeys } from './dubbo-keys.js';
import { BodyCodecs } from './frame/body-codecs.js';
import { DubboExporter } from './server/dubbo-exporter.js';
import { DubboServer } from './server/dubbo-server.js';

/** Where a server listens (set by the application from `bind`/`host`; not registered). */
const BIND_IP = 'bind.ip';
const BIND_PORT = 'bind.port';

/** A server of one listening address, with the TLS settings every service exported on it must share. */
interface ServerEntry {
  readonly server: Promise<DubboServer>;
  /** `TlsMaterial.identity`, or `plaintext`. */
  readonly tls: string;
  /** The TLS settings in words, for messages. */
  readonly described: string;
}

/**
 * The Dubbo 2 protocol (`dubbo`): the 16-byte-header binary frame Java Dubbo 2.7/3.x and apache-dubbo-js speak, with
 * Hessian2 bodies.
 *
 * @remarks
 * Extension `dubbo` of `weft.rpc.Protocol` (default port 20880), one instance per application holding its servers and
 * connections.
 *
 * ```
 *  consumer proxy → cluster → consumer filters → DubboInvoker ──TCP──▶ DubboServer → provider filters → impl
 *                                                 (one connection per     (one per host:port; frames by id,
 *                                                  address, ids, heartbeat, group/path:version lookup, heartbeats,
 *                                                  readonly, reconnect)     payload check, readonly at shutdown)
 * ```
 *
 * - The body codec is the `weft.rpc.Serialization` extension the `serialization` key names (default `hessian2`),
 *   which must be an `ObjectSerialization`; it is found through the loader, never imported. A frame naming another
 *   serialization id is answered with that id's codec if one is installed.
 * - `export(invoker)` starts (or reuses) the server of the URL's listening address; server keys come from the first
 *   export on a port ({@link DubboKeys}). `refer(service, url)` shares one connection per provider address and, unless
 *   `lazy=true`, waits for the first connection attempt (at most `connect-timeout`).
 * - TLS (`ssl-enabled=true`, see `TlsKeys`): a server whose first export asks for it listens with TLS only (no ALPN, as
 *   Java's Netty `SslHandler`), requiring client certificates when `ssl.server-trust-cert-collection-path` is set; a
 *   later export on the same address must ask for the same TLS settings (or the same plaintext), else it is refused.
 *   Consumers share a connection only with references of the same address and TLS settings; a failed handshake fails
 *   calls with `network`, saying why TLS failed.
 * - `destroy()` shuts every server down gracefully (the `readonly` event first) and closes every connection.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, { protocol: 'dubbo', port: 20880 });
 * const greeter = await app.refer(Greeter, { url: 'dubbo://127.0.0.1:20880' });
 * ```
 */
export class DubboProtocol extends Protocol {
  private readonly servers = new Map<string, ServerEntry>();
  private readonly connections = new Map<string, DubboConnection>();
  private readonly codecs: BodyCodecs;
  private destroyed = false;

  constructor(
    @InjectLoader(Serialization) serializations: ExtensionLoader<Serialization>,
    @Inject(Logger) private readonly logger: Logger,
  ) {
    super();
    this.codecs = new BodyCodecs(serializations, DubboDefaults.SERIALIZATION);
  }

  getDefaultPort(): number {
    return DubboDefaults.PORT;
  }

  /** `dubbo` speaks TLS and mTLS (`ssl-enabled=true` and the `ssl.*` keys). */
  override supportsTls(): boolean {
    return true;
  }

  async export(invoker: Invoker): Promise<Exporter> {
    this.assertAlive();
    const url = invoker.getUrl();
    if (url.path === '') {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `Cannot export ${url.toString()} over dubbo: it names no service.`);
    }
    const codec = this.codecs.forUrl(url);
    const server = await this.serverFor(url, codec, `export(${url.getServiceKey() ?? url.path})`);
    const exporter = new DubboExporter({
      invoker,
      path: url.path,
      group: url.getGroup(),
      version: url.getVersion(),
      service: invoker.getService(),
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
    const codec = this.codecs.forUrl(url);
    const connection = this.connectionFor(url, codec, `refer(${service.name}) of dubbo://${url.getAddress()}`);
    const invoker = new DubboInvoker({ service, url, connection, codec, codecs: this.codecs });
    if (!url.getParameter(DubboKeys.LAZY, DubboDefaults.LAZY)) {
      await connection.ready(url.getPositiveParameter(DubboKeys.CONNECT_TIMEOUT, DubboDefaults.CONNECT_TIMEOUT));
    }
    return invoker;
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    const servers = await Promise.allSettled([...this.servers.values()].map((entry) => entry.server));
    this.servers.clear();
    await Promise.allSettled(servers.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)));
    for (const connection of [...this.connections.values()]) connection.release();
    this.connections.clear();
  }

  private assertAlive(): void {
    if (this.destroyed) throw new ExtensionError(ExtensionErrorCode.DESTROYED, 'The dubbo protocol of this application has been destroyed.');
  }

  /**
   * The server of the URL's listening address: `bind.ip`/`bind.port`, else its host and port; TLS when the URL asks
   * for it. @throws ExtensionError when the address already serves with other TLS settings (or plaintext vs TLS).
   */
  private async serverFor(url: URL, codec: DubboServer['codec'], where: string): Promise<DubboServer> {
    const host = url.getParameter(BIND_IP, url.host);
    const port = url.getParameter(BIND_PORT, url.port);
    const address = `${host}:${port}`;
    const material = TlsMaterial.forProvider(url, where, this.logger);
    const tls = material?.identity ?? 'plaintext';
    const existing = this.servers.get(address);
    if (existing !== undefined) {
      material?.close();
      const server = await existing.server;
      if (existing.tls !== tls) {
        throw new ExtensionError(
          ExtensionErrorCode.INVALID_PARAMETER,
          `${where}: cannot be served on ${address} with ${describeTls(url)}: the dubbo server there already serves ` +
            `${server.keys().join(', ') || 'another service'} with ${existing.described}. Services sharing a port share its TLS ` +
            `settings: give this export the same ${TlsKeys.ENABLED} and ssl.server-* keys, or another port.`,
        );
      }
      return server;
    }
    const server = new DubboServer(
      host,
      port,
      {
        payload: url.getParameter(DubboKeys.PAYLOAD, DubboDefaults.PAYLOAD),
        heartbeat: url.getParameter(DubboKeys.HEARTBEAT, DubboDefaults.HEARTBEAT),
        shutdownTimeout: url.getPositiveParameter(DubboKeys.SHUTDOWN_TIMEOUT, DubboDefaults.SHUTDOWN_TIMEOUT),
      },
      this.codecs,
      codec,
      this.logger,
      material,
    );
    const entry: ServerEntry = { server: server.listen().then(() => server), tls, described: describeTls(url) };
    this.servers.set(address, entry);
    entry.server.catch(() => {
      if (this.servers.get(address) === entry) this.servers.delete(address);
    });
    return entry.server;
  }

  private async unexport(exporter: DubboExporter, server: DubboServer): Promise<void> {
    server.remove(exporter);
    if (server.isEmpty) {
      try {
        await this.closeServer(server);
      } finally {
        await exporter.invoker.destroy();
      }
      return;
    }
    const drained = await exporter.inflight.whenIdle(server.options.shutdownTimeout);
    if (!drained) safeLog(this.logger, 'warn', `dubbo: unexport of ${exporter.key}: ${exporter.inflight.count} call(s) still in flight; unexporting anyway.`);
    await exporter.invoker.destroy();
  }

  private async closeServer(server: DubboServer): Promise<void> {
    const address = `${server.host}:${server.port}`;
    const current = this.servers.get(address);
    if (current !== undefined && (await current.server) === server) this.servers.delete(address);
    await server.close();
  }

  /** The shared connection of the URL's address and TLS settings (one per pair). */
  private connectionFor(url: URL, codec: DubboConnection['codec'], where: string): DubboConnection {
    const material = TlsMaterial.forConsumer(url, where, this.logger);
    const key = `${url.getAddress()}|${material?.identity ?? 'plaintext'}`;
    let connection = this.connections.get(key);
    if (connection !== undefined) {
      material?.close();
      return connection.retain();
    }
    const created: DubboConnection = new DubboConnection(
      {
        host: url.host,
        port: url.port,
        payload: url.getParameter(DubboKeys.PAYLOAD, DubboDefaults.PAYLOAD),
        heartbeat: url.getParameter(DubboKeys.HEARTBEAT, DubboDefaults.HEARTBEAT),
        connectTimeout: url.getPositiveParameter(DubboKeys.CONNECT_TIMEOUT, DubboDefaults.CONNECT_TIMEOUT),
        backoff: url.getPositiveParameter(DubboKeys.RECONNECT_BACKOFF, DubboDefaults.RECONNECT_BACKOFF),
        tls: material,
      },
      this.codecs,
      codec,
      this.logger,
      () => {
        if (this.connections.get(key) === created) this.connections.delete(key);
      },
    );
    connection = created;
    this.connections.set(key, connection);
    return connection.retain();
  }
}

/** The TLS settings of a provider URL in words (paths, never the key password). */
function describeTls(url: URL): string {
  if (url.getParameter(TlsKeys.ENABLED)?.trim().toLowerCase() !== 'true') return 'plaintext (no ssl-enabled=true)';
  const files = [TlsKeys.SERVER_CERT, TlsKeys.SERVER_KEY, TlsKeys.SERVER_TRUST]
    .map((key) => [key, url.getParameter(key)?.trim() ?? ''] as const)
    .filter(([, path]) => path !== '')
    .map(([key, path]) => `${key}=${path}`);
  if ((url.getParameter(TlsKeys.SERVER_KEY_PASSWORD) ?? '') !== '') files.push(`${TlsKeys.SERVER_KEY_PASSWORD} set`);
  return `${url.getParameter(TlsKeys.SERVER_TRUST) ? 'mTLS' : 'TLS'} (${files.join(', ')})`;
}
