import http2, { type ClientHttp2Session } from 'node:http2';
import net, { type Socket } from 'node:net';

import { safeLog, type Logger, type TlsMaterial } from '@weft/core/spi';

import type { TripleKeys } from '../triple-keys.js';

/**
 * Settings of the connections to one provider address (from the reference URL's {@link TripleKeys}).
 *
 * @example
 * ```ts
 * const options: ConnectionOptions = { address: '127.0.0.1:50051', connections: 1, connectTimeout: 3000, backoff: 100,
 *   maxBackoff: 10_000, heartbeat: 60_000, maxHeaderListSize: 32_768, initialWindowSize: 1 << 20,
 *   connectionWindowSize: 4 << 20 };
 * ```
 */
export interface ConnectionOptions {
  /** `host:port` of the provider. */
  readonly address: string;
  /** HTTP/2 connections to open (calls are spread over the ready ones). */
  readonly connections: number;
  /** Maximum duration of one connection attempt, in ms. */
  readonly connectTimeout: number;
  /** First reconnect delay, in ms. */
  readonly backoff: number;
  /** Cap of the reconnect delay, in ms. */
  readonly maxBackoff: number;
  /** Keepalive PING interval, in ms (0: none). */
  readonly heartbeat: number;
  /** HTTP/2 `SETTINGS_MAX_HEADER_LIST_SIZE` advertised to the provider. */
  readonly maxHeaderListSize: number;
  /** HTTP/2 `SETTINGS_INITIAL_WINDOW_SIZE`: how many bytes the provider may send on one stream before it is read. */
  readonly initialWindowSize: number;
  /** The connection-level receive window, shared by all streams of the session. */
  readonly connectionWindowSize: number;
  /** `node:http2` `maxSessionMemory` in MB (see `sessionMemory`); Node's 10 MB when absent. */
  readonly maxSessionMemory?: number;
  /** When given, connections speak TLS (ALPN `h2`, the provider's certificate verified; a client certificate under mTLS). */
  readonly tls?: TlsMaterial;
}

/** Growth factor of the reconnect delay (gRPC's). */
const BACKOFF_MULTIPLIER = 1.6;
/** Random spread of each delay: ±20 % (gRPC's). */
const BACKOFF_JITTER = 0.2;
/**
 * A session that ends within this long after connecting is not replaced at once: after a graceful GOAWAY the
 * connection goes idle (the next call connects), otherwise it backs off.
 */
const MIN_HEALTHY_LIFETIME = 1000;
/** HTTP/2 error code of a graceful GOAWAY (a provider closing an idle connection, or shutting down). */
const NGHTTP2_NO_ERROR = 0;

/**
 * The reconnect delay before attempt `attempt` (0-based): `backoff × 1.6^attempt`, capped at `maxBackoff`, ±20 %.
 *
 * @example
 * ```ts
 * backoffDelay(0, 100, 10_000); // 80…120
 * backoffDelay(20, 100, 10_000); // 8000…12000
 * ```
 */
export function backoffDelay(attempt: number, backoff: number, maxBackoff: number, random: () => number = Math.random): number {
  const base = Math.min(maxBackoff, backoff * BACKOFF_MULTIPLIER ** attempt);
  return Math.max(0, Math.round(base * (1 + BACKOFF_JITTER * (2 * random() - 1))));
}

/** Opens the TCP connection of a session, with Nagle's algorithm off (small frames go out at once). */
function connectSocket(authority: globalThis.URL): Socket {
  const host = authority.hostname.startsWith('[') ? authority.hostname.slice(1, -1) : authority.hostname;
  return net.connect({ host, port: Number(authority.port) || 80, noDelay: true });
}

/** Opens the TLS connection of a session: ALPN `h2`, the provider's certificate verified against the trust collection. */
function connectTls(authority: globalThis.URL, tls: TlsMaterial): Socket {
  const host = authority.hostname.startsWith('[') ? authority.hostname.slice(1, -1) : authority.hostname;
  const socket = tls.connect(host, Number(authority.port) || 443, ['h2']);
  socket.setNoDelay(true);
  return socket;
}

/**
 * One HTTP/2 session in use: counts the streams on it, so the session keeps the process alive only while calls
 * are in flight (`ref` on the first stream, `unref` after the last).
 *
 * @example
 * ```ts
 * const handle = pool.acquire();
 * handle?.start();
 * stream.once('close', () => handle?.end());
 * ```
 */
export class SessionHandle {
  /** Streams in flight on the session. */
  active = 0;

  constructor(readonly session: ClientHttp2Session) {}

  /** A stream starts. */
  start(): void {
    if (this.active++ === 0 && !this.session.destroyed) this.session.ref();
  }

  /** A stream ended. */
  end(): void {
    if (--this.active === 0 && !this.session.destroyed) this.session.unref();
  }
}

type ConnectionState = 'idle' | 'connecting' | 'ready' | 'backoff' | 'closed';

/**
 * One HTTP/2 connection to a provider that reconnects by itself: after a failed attempt it waits
 * `backoff × 1.6^n` ms (±20 %, capped at `maxBackoff`) and tries again; when a session that was up for a while
 * ends (GOAWAY, or the connection lost) it opens a new one at once, while the old one drains; when a young session
 * gets a graceful GOAWAY (a provider's short `idle-timeout`) while the provider's port still accepts connections, it
 * goes idle, and the next call connects — as a gRPC channel leaving IDLE does — instead of backing off.
 */
class TripleConnection {
  state: ConnectionState = 'idle';
  private handle: SessionHandle | undefined;
  private attempts = 0;
  private connectedAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private heartbeatTimer: ReturnType<typeof setInterval> | undefined;
  private pingPending = false;
  private waiters: (() => void)[] = [];
  /** When the next attempt starts (epoch ms), while in backoff. */
  retryAt = 0;
  /** Why the last attempt or session failed. */
  lastError: Error | undefined;

  constructor(
    private readonly options: ConnectionOptions,
    private readonly logger: Logger,
  ) {}

  /** The session calls may use now: the ready one, or the one connecting (requests queue until it connects). */
  acquire(): SessionHandle | undefined {
    if (this.state === 'idle') this.open();
    return this.state === 'ready' || this.state === 'connecting' ? this.handle : undefined;
  }

  /** Starts connecting if idle; resolves when the current attempt has succeeded or failed. */
  settled(): Promise<void> {
    if (this.state !== 'idle' && this.state !== 'connecting') return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      if (this.state === 'idle') this.open();
      else this.handle?.session.ref();
    });
  }

  /** Closes for good: in-flight streams finish, then the session closes; no more reconnects. */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.clearTimers();
    this.wake();
    const handle = this.handle;
    this.handle = undefined;
    if (handle !== undefined && !handle.session.destroyed) handle.session.close();
  }

  private open(): void {
    this.clearTimers();
    this.state = 'connecting';
    const options = this.options;
    const tls = options.tls;
    // Before the provider's SETTINGS, a TLS failure is the handshake's (an untrusted or misnamed certificate, ours
    // refused): the first one says why (the session's error after the socket's repeats it).
    let handshakeError: Error | undefined;
    const failed = (error: Error): void => {
      if (tls === undefined || this.handle !== handle || this.state !== 'connecting') {
        this.lastError = error;
        return;
      }
      handshakeError ??= new Error(`TLS with ${options.address} failed: ${error.message}`, { cause: error });
      this.lastError = handshakeError;
    };
    const session = http2.connect(`${tls === undefined ? 'http' : 'https'}://${options.address}`, {
      settings: { enablePush: false, maxHeaderListSize: options.maxHeaderListSize, initialWindowSize: options.initialWindowSize },
      maxHeaderListPairs: 256,
      ...(options.maxSessionMemory === undefined ? {} : { maxSessionMemory: options.maxSessionMemory }),
      createConnection:
        tls === undefined
          ? connectSocket
          : (authority: globalThis.URL) => {
              const socket = connectTls(authority, tls);
              // Node's HTTP/2 session neither closes nor reports when its TLS socket fails (a TLS 1.3 alert after the
              // handshake, as for a refused client certificate): destroy the socket, which closes the session.
              socket.once('error', (error: Error) => {
                failed(error);
                socket.destroy();
              });
              return socket;
            },
    });
    const handle = new SessionHandle(session);
    this.handle = handle;
    if (this.waiters.length === 0) session.unref();
    session.on('error', failed);
    // The connection window starts at 64 KiB whatever SETTINGS say; raise it once the session is up.
    session.once('connect', () => {
      if (!session.destroyed) session.setLocalWindowSize(options.connectionWindowSize);
    });
    // Ready once the provider's first SETTINGS arrived (its max-concurrent-streams is then known), not at TCP connect.
    session.once('remoteSettings', () => {
      if (this.handle !== handle) return;
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      this.state = 'ready';
      this.attempts = 0;
      this.lastError = undefined;
      this.connectedAt = Date.now();
      if (handle.active === 0) session.unref();
      this.startHeartbeat(handle);
      this.wake();
    });
    session.once('goaway', (errorCode: number) => {
      if (this.handle !== handle || this.state === 'closed') return;
      // The session drains its streams and closes by itself; new calls need a new one.
      const healthy = this.state === 'ready' && Date.now() - this.connectedAt >= MIN_HEALTHY_LIFETIME;
      this.handle = undefined;
      this.stopHeartbeat();
      if (healthy) this.open();
      else if (this.state === 'ready' && errorCode === NGHTTP2_NO_ERROR) this.goIdle();
      else this.scheduleReconnect();
    });
    session.once('close', () => {
      if (this.handle !== handle || this.state === 'closed') return;
      // A failed attempt, or a session lost soon after it connected, backs off; a session lost after a healthy
      // lifetime is replaced at once (a call meanwhile waits for the new one instead of failing fast).
      const healthy = this.state === 'ready' && Date.now() - this.connectedAt >= MIN_HEALTHY_LIFETIME;
      this.handle = undefined;
      this.stopHeartbeat();
      if (healthy) this.open();
      else this.scheduleReconnect();
    });
    this.timer = setTimeout(() => {
      if (this.handle !== handle || this.state !== 'connecting') return;
      this.lastError = new Error(`connect timeout after ${options.connectTimeout} ms`);
      session.destroy();
    }, options.connectTimeout);
    this.timer.unref?.();
  }

  /**
   * No session and no attempt pending: the next `acquire()` (a call) connects. A graceful GOAWAY is also what a
   * provider shutting down sends, so a bare TCP connect checks that the port still listens: if it is refused, the
   * connection backs off (unavailable) as after a failed attempt.
   */
  private goIdle(): void {
    this.clearTimers();
    this.state = 'idle';
    this.attempts = 0;
    this.wake();
    const probe = connectSocket(new globalThis.URL(`http://${this.options.address}`));
    probe.unref();
    const done = (error?: Error): void => {
      probe.destroy();
      // A call meanwhile opened a session, or the pool closed: that attempt decides.
      if (this.state !== 'idle' || this.handle !== undefined || error === undefined) return;
      this.lastError = error;
      this.scheduleReconnect();
    };
    probe.once('connect', () => done());
    probe.once('error', done);
    probe.setTimeout(this.options.connectTimeout, () => done(new Error(`connect timeout after ${this.options.connectTimeout} ms`)));
  }

  private scheduleReconnect(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    const delay = backoffDelay(this.attempts++, this.options.backoff, this.options.maxBackoff);
    this.state = 'backoff';
    this.retryAt = Date.now() + delay;
    this.wake();
    safeLog(
      this.logger,
      'debug',
      `tri: connection to ${this.options.address} unavailable (${this.lastError?.message ?? 'closed'}); reconnecting in ${delay} ms`,
    );
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.state === 'backoff') this.open();
    }, delay);
    this.timer.unref?.();
  }

  private startHeartbeat(handle: SessionHandle): void {
    const interval = this.options.heartbeat;
    if (interval <= 0) return;
    this.pingPending = false;
    this.heartbeatTimer = setInterval(() => {
      const session = handle.session;
      if (session.destroyed || this.handle !== handle) return;
      if (this.pingPending) {
        this.lastError = new Error(`no PING answer within ${interval} ms`);
        session.destroy();
        return;
      }
      this.pingPending = true;
      try {
        session.ping((error) => {
          if (error === null) this.pingPending = false;
        });
      } catch {
        // Closing meanwhile.
      }
    }, interval);
    this.heartbeatTimer.unref?.();
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== undefined) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  private clearTimers(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.stopHeartbeat();
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * The HTTP/2 connections of one provider address, shared by every reference to it (`connections` sessions, one by
 * default), with reconnect and availability.
 *
 * @remarks
 * Calls go to a ready session (round robin when there are several); a session still connecting queues them. While
 * every connection waits to reconnect, `acquire()` returns nothing and the invoker fails fast with `network`, so
 * failover and fail-mock react at once; {@link TripleConnectionPool.isAvailable} is false meanwhile. Idle sessions
 * do not keep the process alive.
 *
 * @example
 * ```ts
 * const pool = new TripleConnectionPool(options, logger, () => pools.delete(key));
 * await pool.ready();
 * const handle = pool.acquire();
 * ```
 */
export class TripleConnectionPool {
  private readonly connections: TripleConnection[];
  private next = 0;
  private refs = 0;
  private closed = false;

  constructor(
    readonly options: ConnectionOptions,
    logger: Logger,
    private readonly onClose: () => void,
  ) {
    this.connections = Array.from({ length: Math.max(1, options.connections) }, () => new TripleConnection(options, logger));
  }

  /** Counts one more user (invoker) of the pool. */
  retain(): this {
    this.refs++;
    return this;
  }

  /** Counts one user out; the last one closes the pool. */
  release(): void {
    if (--this.refs > 0 || this.closed) return;
    this.close();
  }

  /** Whether a call could be sent now (a session is ready, or nothing was tried yet). */
  isAvailable(): boolean {
    if (this.closed) return false;
    for (const connection of this.connections) if (connection.state === 'ready' || connection.state === 'idle') return true;
    return false;
  }

  /** A session for one call, or undefined while every connection waits to reconnect. */
  acquire(): SessionHandle | undefined {
    if (this.closed) return undefined;
    const connections = this.connections;
    const n = connections.length;
    if (n === 1) return (connections[0] as TripleConnection).acquire();
    let fallback: TripleConnection | undefined;
    for (let i = 0; i < n; i++) {
      const connection = connections[(this.next + i) % n] as TripleConnection;
      if (connection.state === 'ready') {
        this.next = (this.next + i + 1) % n;
        return connection.acquire();
      }
      if (fallback === undefined && (connection.state === 'connecting' || connection.state === 'idle')) fallback = connection;
    }
    return fallback?.acquire();
  }

  /** Starts connecting; resolves when every first attempt has succeeded or failed, or after `timeoutMs`. */
  async ready(timeoutMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    try {
      await Promise.race([Promise.all(this.connections.map((c) => c.settled())), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Why calls cannot be sent now, for error messages. */
  describeUnavailable(): string {
    const now = Date.now();
    const waiting = this.connections.filter((c) => c.state === 'backoff');
    if (waiting.length === 0) return this.closed ? 'the connection pool is closed' : 'no connection';
    const soonest = Math.max(0, Math.min(...waiting.map((c) => c.retryAt)) - now);
    const cause = waiting.find((c) => c.lastError !== undefined)?.lastError?.message;
    return `not connected${cause === undefined ? '' : ` (${cause})`}; reconnecting in ${soonest} ms`;
  }

  /** Closes every connection gracefully (in-flight calls finish). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const connection of this.connections) connection.close();
    this.onClose();
  }
}
