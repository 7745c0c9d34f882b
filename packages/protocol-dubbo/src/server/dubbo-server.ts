import net from 'node:net';

import { safeLog, type Logger, type ObjectSerialization, type ServiceDefinition, type TlsMaterial } from '@weft/core/spi';

import type { BodyCodecs } from '../frame/body-codecs.js';
import { encodeFrame, Flag } from '../frame/header.js';
import { splitDescriptor } from '../frame/status.js';
import { exporterKey, InflightCounter, type DubboExporter } from './dubbo-exporter.js';
import { ServerConnection } from './server-connection.js';

/**
 * Settings of a {@link DubboServer}, from the export URL of the first service on its port.
 *
 * @example
 * ```ts
 * const options: DubboServerOptions = { payload: 8 << 20, heartbeat: 60_000, shutdownTimeout: 10_000 };
 * ```
 */
export interface DubboServerOptions {
  /** Maximum request body, in bytes (0: unlimited). */
  readonly payload: number;
  /** Heartbeat interval in ms; a connection idle (no read, no write) for 3× this is closed (0: never). */
  readonly heartbeat: number;
  /** How long `close()` waits for in-flight calls, in ms. */
  readonly shutdownTimeout: number;
}

/** How long a client may take to complete its TLS handshake, in ms. */
const TLS_HANDSHAKE_TIMEOUT = 10_000;
/** How long `close()` lets ended connections (and handshakes still running) finish before destroying them, in ms. */
const CLOSE_GRACE = 1000;
/** Entries a lookup table of the server remembers before it starts over (versions, groups, descriptors). */
const MAX_REMEMBERED = 256;

/**
 * One `dubbo://` listening socket: its connections, the services exported on it, idle detection and graceful shutdown.
 *
 * @remarks
 * Services are found by `group/path:version` (`""`, `0.0.0` and `*` meaning no version). Argument types are known
 * from the path alone (every group of one interface shares its definition), so arguments are read before the group —
 * which travels in the trailing attachments — is known. `close()` sends the one-way `readonly` event (`"R"`) on every
 * connection, so consumers stop routing to this provider, waits for in-flight calls (at most `shutdownTimeout`), then
 * closes every connection.
 *
 * With TLS material (`ssl-enabled=true` on the export URL of the first service), the port speaks TLS only — no ALPN,
 * as Java Dubbo's Netty `SslHandler` — and requires client certificates when the material has a trust collection
 * (mTLS); the verified peer certificate of each connection is read once and set on every invocation it carries. The
 * material (and its file watching) is closed with the server.
 *
 * @example
 * ```ts
 * const server = new DubboServer('127.0.0.1', 20880, options, codecs, hessian, logger);
 * await server.listen();
 * server.add(exporter);
 * await server.close();
 * ```
 */
export class DubboServer {
  readonly connections = new Set<ServerConnection>();
  readonly inflight = new InflightCounter();
  private readonly exporters = new Map<string, DubboExporter>();
  /** Per exported path: its definition (`service` undefined when it has none). */
  private readonly definitions = new Map<string, { readonly service: ServiceDefinition | undefined }>();
  /** Exporters found by (group, path, version) without building their key: path → version → group ('' for none). */
  private readonly found = new Map<string, Map<string, Map<string, DubboExporter | undefined>>>();
  /** Parameter descriptors split into their parts (bounded: cleared when full). */
  private readonly descriptors = new Map<string, readonly string[] | undefined>();
  private readonly server: net.Server;
  /** Raw TCP sockets not yet closed (TLS handshakes in progress included), destroyed at the end of `close()`. */
  private readonly sockets = new Set<net.Socket>();
  private idleTimer: NodeJS.Timeout | undefined = undefined;
  private closing: Promise<void> | undefined = undefined;
  private nextEventId = 1;

  constructor(
    readonly host: string,
    readonly port: number,
    readonly options: DubboServerOptions,
    readonly codecs: BodyCodecs,
    /** The codec of the first export: answers frames whose serialization id is unknown. */
    readonly codec: ObjectSerialization,
    readonly logger: Logger,
    /** The TLS material of the port, `undefined` for plaintext. */
    readonly tls?: TlsMaterial,
  ) {
    this.server =
      tls === undefined
        ? net.createServer({ noDelay: true }, (socket) => this.accept(socket))
        : tls.createServer([], TLS_HANDSHAKE_TIMEOUT, (socket) => this.accept(socket));
    // The raw TCP socket of every connection (before any TLS handshake): no delay, and tracked so that `close()`
    // also ends handshakes still in progress.
    this.server.on('connection', (socket: net.Socket) => {
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Starts listening. @throws the listen error (`EADDRINUSE`…) with the address in its message. */
  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => {
        this.tls?.close();
        reject(new Error(`dubbo: cannot listen on ${this.host}:${this.port}: ${error.message}`, { cause: error }));
      };
      this.server.once('error', onError);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', onError);
        this.server.on('error', (error) => safeLog(this.logger, 'error', `dubbo: server ${this.host}:${this.port} failed`, error));
        if (this.options.heartbeat > 0) {
          this.idleTimer = setInterval(() => this.closeIdle(), this.options.heartbeat);
          this.idleTimer.unref();
        }
        resolve();
      });
    });
  }

  /** The port actually listened on. */
  get boundPort(): number {
    const address = this.server.address();
    return typeof address === 'object' && address !== null ? address.port : this.port;
  }

  get isEmpty(): boolean {
    return this.exporters.size === 0;
  }

  /** Adds a service. @throws `Error` when its key is already exported on this port. */
  add(exporter: DubboExporter): void {
    if (this.exporters.has(exporter.key)) throw new Error(`dubbo: ${exporter.key} is already exported on ${this.host}:${this.port}.`);
    this.exporters.set(exporter.key, exporter);
    this.found.clear();
    if (this.definitions.get(exporter.path)?.service === undefined) this.definitions.set(exporter.path, { service: exporter.service });
  }

  remove(exporter: DubboExporter): void {
    if (this.exporters.get(exporter.key) !== exporter) return;
    this.exporters.delete(exporter.key);
    this.found.clear();
    for (const other of this.exporters.values()) if (other.path === exporter.path) return;
    this.definitions.delete(exporter.path);
  }

  /** Whether some service is exported under `path`, and its definition (`undefined` when it has none). */
  definitionOf(path: string): { readonly service: ServiceDefinition | undefined } | undefined {
    return this.definitions.get(path);
  }

  /** The exporter of a call's `group/path:version`. */
  find(group: string | undefined, path: string, version: string | undefined): DubboExporter | undefined {
    // Remembered per exported path only: a flood of unknown paths or versions cannot grow the table without bound.
    if (!this.definitions.has(path)) return undefined;
    let versions = this.found.get(path);
    if (versions === undefined) this.found.set(path, (versions = new Map()));
    const v = version ?? '';
    let groups = versions.get(v);
    if (groups === undefined) {
      if (versions.size >= MAX_REMEMBERED) versions.clear();
      versions.set(v, (groups = new Map()));
    }
    const g = group ?? '';
    if (groups.has(g)) return groups.get(g);
    const exporter = this.exporters.get(exporterKey(group, path, version));
    if (groups.size >= MAX_REMEMBERED) groups.clear();
    groups.set(g, exporter);
    return exporter;
  }

  /** A parameter descriptor's parts (`splitDescriptor`), remembered; `undefined` when malformed. */
  descriptorParts(descriptor: string): readonly string[] | undefined {
    const known = this.descriptors.get(descriptor);
    if (known !== undefined || this.descriptors.has(descriptor)) return known;
    const parts = splitDescriptor(descriptor);
    if (this.descriptors.size >= MAX_REMEMBERED) this.descriptors.clear();
    this.descriptors.set(descriptor, parts === undefined ? undefined : Object.freeze(parts));
    return parts;
  }

  /** The exported keys, for messages. */
  keys(): string[] {
    return [...this.exporters.keys()];
  }

  /** Shuts down gracefully (idempotent): readonly event, in-flight calls drain, connections close. */
  close(): Promise<void> {
    return (this.closing ??= this.doClose());
  }

  private async doClose(): Promise<void> {
    if (this.idleTimer !== undefined) clearInterval(this.idleTimer);
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const notice = this.readonlyNotice();
    for (const connection of this.connections) connection.write(notice);
    const drained = await this.inflight.whenIdle(this.options.shutdownTimeout);
    if (!drained) safeLog(this.logger, 'warn', `dubbo: server ${this.host}:${this.port} closed with ${this.inflight.count} call(s) still in flight (shutdown-timeout ${this.options.shutdownTimeout} ms).`);
    for (const connection of [...this.connections]) connection.end();
    // Ended connections get a grace to flush; handshakes still in progress (never accepted) end with it.
    const grace = setTimeout(() => {
      for (const socket of this.sockets) socket.destroy();
    }, CLOSE_GRACE);
    grace.unref();
    try {
      await stopped;
    } finally {
      clearTimeout(grace);
      this.tls?.close();
    }
  }

  /** The one-way event `"R"` (flag `0xa2`): this provider is shutting down. */
  private readonlyNotice(): Buffer {
    const out = this.codec.createOutput();
    out.writeString('R');
    const id = this.nextEventId++;
    return encodeFrame(Flag.REQUEST | Flag.EVENT | this.codec.dubboSerializationId, 0, 0, id, out.finish());
  }

  private accept(socket: net.Socket): void {
    if (this.closing !== undefined) {
      socket.destroy();
      return;
    }
    const connection = new ServerConnection(this, socket);
    this.connections.add(connection);
    socket.once('close', () => this.connections.delete(connection));
  }

  /** Closes connections that read and wrote nothing for 3 × heartbeat (Java's server idle rule). */
  private closeIdle(): void {
    const limit = 3 * this.options.heartbeat;
    const now = Date.now();
    for (const connection of this.connections) {
      if (now - connection.lastActivity >= limit) {
        safeLog(this.logger, 'info', `dubbo: closing idle connection from ${connection.remote} (nothing read or written for ${limit} ms, 3 × heartbeat).`);
        connection.destroy();
      }
    }
  }
}
