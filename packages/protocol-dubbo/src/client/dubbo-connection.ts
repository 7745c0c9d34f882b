import net from 'node:net';

import { safeLog, type Logger, type ObjectSerialization, type TlsMaterial } from '@weft/core/spi';

import type { BodyCodecs } from '../frame/body-codecs.js';
import { FrameDecoder, TLS_RECORD, type FrameSink } from '../frame/frame-decoder.js';
import { FrameWriter } from '../frame/frame-writer.js';
import { encodeFrame, Flag, type Frame } from '../frame/header.js';
import { DubboStatus } from '../frame/status.js';

/** Largest id half a client uses: ids stay below 2⁵³, so one JS number is the key of a pending call. */
/** 2³²: a request id is its high half times this plus its low half. */
export const TWO_32 = 2 ** 32;
const MAX_RECONNECT_DELAY = 30_000;
/**
 * A TLS connection the provider closes this soon after the handshake, before sending anything, was refused: a Node
 * provider (Weft) verifies the client certificate after the TLS 1.3 handshake and closes without an alert.
 */
const REFUSED_WITHIN = 1000;

/**
 * A call waiting for its response on a {@link DubboConnection}.
 *
 * @example
 * ```ts
 * const call: PendingCall = { complete: (frame) => settle(frame), fail: (error) => reject(error), oversized: (n) => tooBig(n) };
 * ```
 */
export interface PendingCall {
  /** The response frame arrived. */
  complete(frame: Frame): void;
  /** The connection closed with the call pending. */
  lost(reason: string): void;
  /** The response header announced a body over `payload` (not read). */
  oversized(length: number): void;
}

/**
 * Settings of a {@link DubboConnection}, from the first reference to its address.
 *
 * @example
 * ```ts
 * const options: ConnectionOptions = { host: '127.0.0.1', port: 20880, payload: 8 << 20, heartbeat: 60_000, connectTimeout: 3000, backoff: 100 };
 * ```
 */
export interface ConnectionOptions {
  readonly host: string;
  readonly port: number;
  /** Maximum response body, in bytes (0: unlimited). */
  readonly payload: number;
  /** Heartbeat after this many ms without reading; 3× closes and reconnects (0: no heartbeats). */
  readonly heartbeat: number;
  readonly connectTimeout: number;
  /** First reconnect delay, in ms (doubled per failure, capped at 30 s). */
  readonly backoff: number;
  /** The consumer's TLS material: connections are TLS (no ALPN) verified against it; `undefined` for plaintext. */
  readonly tls?: TlsMaterial | undefined;
}

/**
 * The one TCP connection a consumer keeps to a provider address, shared (reference-counted) by every reference to it
 * and multiplexed by request id.
 *
 * @remarks
 * Reconnects with backoff while referenced; calls pending when it closes fail with `network` (`CHANNEL_INACTIVE`).
 * Sends a heartbeat after `heartbeat` ms without reading and closes (then reconnects) after 3 × `heartbeat`; answers
 * heartbeats a provider sends. The provider's `readonly` event (`"R"`, sent at graceful shutdown) makes it
 * unavailable — clusters stop routing to it — until `"W"` or a new connection. Writes of one tick go out together.
 *
 * With TLS material the connection is TLS, verified against the material (its trust collection, else the system's
 * CAs; `ssl.server-name`, else the host) and presenting its client certificate; a failed handshake is reported as
 * "TLS with <address> failed: <why> (<OpenSSL's reason>)" in the `network` errors of the calls. Under TLS 1.3 a provider
 * refuses a client certificate only after the client's handshake completed, so a TLS connection counts as healthy
 * (the reconnect backoff starts over) once it read something, not when its handshake ends.
 *
 * @example
 * ```ts
 * const connection = new DubboConnection(options, codecs, hessian, logger, () => pools.delete(key)).retain();
 * await connection.ready(3000);
 * ```
 */
export class DubboConnection implements FrameSink {
  /** `host:port`. */
  readonly address: string;
  /** Set by the provider's `readonly` event. */
  readonly = false;
  private socket: net.Socket | undefined = undefined;
  private connected = false;
  /** Whether the current socket has read something (TLS: the provider accepted us). */
  private proven = false;
  /** Whether a frame was written on the current socket. */
  private wrote = false;
  private decoder: FrameDecoder | undefined = undefined;
  private readonly pending = new Map<number, PendingCall>();
  private nextId = 1;
  private refs = 0;
  private closed = false;
  private attempts = 0;
  private lastError: string | undefined = undefined;
  private lastRead = Date.now();
  private reconnectTimer: NodeJS.Timeout | undefined = undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined = undefined;
  private waiters: (() => void)[] = [];
  private writer: FrameWriter | undefined = undefined;

  constructor(
    readonly options: ConnectionOptions,
    private readonly codecs: BodyCodecs,
    /** The codec of heartbeats and of frames whose serialization id is the reference's. */
    readonly codec: ObjectSerialization,
    private readonly logger: Logger,
    private readonly onClosed: () => void,
  ) {
    this.address = `${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
    this.connect();
    if (options.heartbeat > 0) {
      this.heartbeatTimer = setInterval(() => this.checkHeartbeat(), Math.max(1, Math.floor(options.heartbeat / 2)));
      this.heartbeatTimer.unref();
    }
  }

  /** Takes a reference (one per invoker). */
  retain(): this {
    this.refs++;
    return this;
  }

  /** Drops a reference; the last one closes the connection (after a grace for in-flight calls). */
  release(): void {
    if (--this.refs > 0 || this.closed) return;
    this.closed = true;
    this.onClosed();
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    if (this.heartbeatTimer !== undefined) clearInterval(this.heartbeatTimer);
    this.options.tls?.close();
    const socket = this.socket;
    if (socket === undefined) return;
    this.writer?.flushNow();
    if (this.pending.size === 0) socket.destroy();
    else {
      socket.end();
      setTimeout(() => socket.destroy(), 1000).unref();
    }
  }

  /** Open, and not marked read-only by the provider. */
  isAvailable(): boolean {
    return this.connected && !this.readonly;
  }

  /** Whether frames can be written now. */
  get isConnected(): boolean {
    return this.connected;
  }

  /** Why the connection is not open, for messages. */
  describeUnavailable(): string {
    if (this.closed) return 'the connection was closed';
    return `not connected to ${this.address}${this.lastError === undefined ? ' (connecting)' : ` (${this.lastError})`}`;
  }

  /** Resolves after the first connection attempt settles, or after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void> {
    if (this.connected || this.attempts > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Registers a two-way call: its request id halves. */
  register(call: PendingCall): number {
    const id = this.nextId++;
    if (this.nextId >= Number.MAX_SAFE_INTEGER) this.nextId = 1;
    this.pending.set(id, call);
    return id;
  }

  /** Forgets a call (settled by a timeout or a cancel). */
  forget(id: number): void {
    this.pending.delete(id);
  }

  /** A fresh id for a one-way request. */
  nextRequestId(): number {
    const id = this.nextId++;
    if (this.nextId >= Number.MAX_SAFE_INTEGER) this.nextId = 1;
    return id;
  }

  /** Writes a request frame. */
  write(frame: Buffer): void {
    if (!this.connected) return;
    this.wrote = true;
    this.writer?.write(frame);
  }

  /** Writes a frame given by its header fields and body (no frame buffer of its own; see `FrameWriter.writeFrame`). */
  writeFrame(flag: number, status: number, idHigh: number, idLow: number, body: Uint8Array): void {
    if (!this.connected) return;
    this.wrote = true;
    this.writer?.writeFrame(flag, status, idHigh, idLow, body);
  }

  /** Calls pending a response (tests). */
  get pendingCount(): number {
    return this.pending.size;
  }

  frame(frame: Frame): void {
    const flag = frame.flag;
    if ((flag & Flag.REQUEST) !== 0) {
      this.providerRequest(frame);
      return;
    }
    if ((flag & Flag.EVENT) !== 0) return; // a heartbeat answer: reading it was the point
    const id = frame.idHigh * TWO_32 + frame.idLow;
    const call = this.pending.get(id);
    if (call === undefined) return; // timed out or cancelled meanwhile
    this.pending.delete(id);
    call.complete(frame);
  }

  oversized(header: Frame, length: number): void {
    safeLog(this.logger, 'warn', `dubbo: response from ${this.address} dropped unread: ${length} bytes exceed the payload limit of ${this.options.payload} bytes (URL key "payload").`);
    const id = header.idHigh * TWO_32 + header.idLow;
    const call = this.pending.get(id);
    if (call === undefined) return;
    this.pending.delete(id);
    call.oversized(length);
  }

  corrupt(reason: string): void {
    const hint = this.options.tls === undefined && reason.includes(TLS_RECORD) ? ' (the provider speaks TLS: refer with ssl-enabled=true)' : '';
    safeLog(this.logger, 'warn', `dubbo: closing connection to ${this.address}: ${reason}${hint}.`);
    this.lastError = `${reason}${hint}`;
    this.socket?.destroy();
  }

  /** Heartbeats and events a provider sends. */
  private providerRequest(frame: Frame): void {
    const codec = this.codecs.byId(frame.flag & Flag.SERIALIZATION_MASK);
    if ((frame.flag & Flag.EVENT) === 0 || codec === undefined) return;
    if (this.codecs.isHeartbeat(codec, frame.body)) {
      if ((frame.flag & Flag.TWO_WAY) !== 0) {
        this.write(encodeFrame(Flag.EVENT | codec.dubboSerializationId, DubboStatus.OK, frame.idHigh, frame.idLow, this.codecs.nullBytes(codec)));
      }
      return;
    }
    let event: string | null = null;
    try {
      event = codec.createInput(frame.body).readString();
    } catch {
      return;
    }
    if (event === 'R') {
      if (!this.readonly) safeLog(this.logger, 'info', `dubbo: provider ${this.address} is shutting down (readonly event): no new calls are routed to it.`);
      this.readonly = true;
    } else if (event === 'W') {
      this.readonly = false;
    }
  }

  private connect(): void {
    if (this.closed) return;
    const { host, port, tls } = this.options;
    const socket = tls === undefined ? net.connect({ host, port, noDelay: true }) : tls.connect(host, port, []);
    if (tls !== undefined) socket.setNoDelay(true);
    this.socket = socket;
    this.proven = false;
    this.wrote = false;
    /** Connected (TLS: the handshake completed), and when. */
    let opened = false;
    let openedAt = 0;
    const timer = setTimeout(
      () => socket.destroy(new Error(`connect${tls === undefined ? '' : ' and TLS handshake'} timed out after ${this.options.connectTimeout} ms`)),
      this.options.connectTimeout,
    );
    timer.unref();
    socket.once(tls === undefined ? 'connect' : 'secureConnect', () => {
      clearTimeout(timer);
      opened = true;
      openedAt = Date.now();
      this.connected = true;
      this.readonly = false;
      this.lastError = undefined;
      if (tls === undefined) this.attempts = 0;
      this.lastRead = Date.now();
      this.decoder = new FrameDecoder(this.options.payload, this);
      this.writer = new FrameWriter(socket);
      this.wake();
    });
    socket.on('data', (chunk: Buffer) => {
      this.lastRead = Date.now();
      if (!this.proven) {
        this.proven = true;
        this.attempts = 0;
      }
      this.decoder?.push(chunk);
    });
    let failure: (Error & { code?: string }) | undefined;
    socket.on('error', (error: Error & { code?: string }) => {
      failure = error;
      const tlsFailure = tls === undefined ? undefined : describeTlsFailure(error, opened);
      this.lastError = tlsFailure !== undefined ? `TLS with ${this.address} failed: ${tlsFailure}` : error.code !== undefined ? `${error.code}: ${error.message}` : error.message;
    });
    socket.once('close', () => {
      clearTimeout(timer);
      const after = Date.now() - openedAt;
      const refused = opened && !this.proven && after <= REFUSED_WITHIN && (failure === undefined || failure.code === 'ECONNRESET' || failure.code === 'EPIPE');
      if (refused && tls === undefined && this.wrote) {
        // What a TLS-only port does to plaintext: it drops the connection at our first bytes, without a word.
        this.lastError = `the provider closed the connection ${after} ms after it opened, before answering anything: does it serve TLS? Then refer with ssl-enabled=true`;
      } else if (refused && tls !== undefined) {
        // Under TLS 1.3 a client certificate is checked after our handshake completed; a Node provider then closes.
        const presented = tls.options.cert !== undefined;
        this.lastError =
          `TLS with ${this.address} failed: the provider closed the connection ${after} ms after the handshake, before answering anything: ` +
          (presented
            ? 'it refused our client certificate, most likely (ssl.client-key-cert-chain-path not signed by a CA the provider trusts?)'
            : 'it refused us, most likely because it requires a client certificate (ssl.client-key-cert-chain-path, ssl.client-private-key-path)') +
          (failure === undefined ? '' : ` (${failure.code}: ${failure.message})`);
      }
      this.disconnected(socket);
    });
  }

  private disconnected(socket: net.Socket): void {
    if (this.socket !== socket) return;
    const was = this.connected;
    this.connected = false;
    this.decoder = undefined;
    this.attempts++;
    this.wake();
    if (this.pending.size > 0) {
      const reason = was ? `the connection to ${this.address} closed${this.lastError === undefined ? '' : ` (${this.lastError})`}` : this.describeUnavailable();
      const calls = [...this.pending.values()];
      this.pending.clear();
      for (const call of calls) call.lost(reason);
    }
    if (this.closed) return;
    const delay = Math.min(MAX_RECONNECT_DELAY, this.options.backoff * 2 ** Math.min(this.attempts - 1, 16));
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Java's client rule: a heartbeat after `heartbeat` ms without reading; 3 × without reading: dead, reconnect. */
  private checkHeartbeat(): void {
    if (!this.connected) return;
    const silent = Date.now() - this.lastRead;
    const heartbeat = this.options.heartbeat;
    if (silent >= 3 * heartbeat) {
      safeLog(this.logger, 'warn', `dubbo: connection to ${this.address} read nothing for ${silent} ms (3 × heartbeat ${heartbeat} ms): closing it to reconnect.`);
      this.lastError = 'heartbeat timeout';
      this.socket?.destroy();
      return;
    }
    if (silent >= heartbeat) {
      const id = this.nextRequestId();
      this.write(encodeFrame(Flag.REQUEST | Flag.TWO_WAY | Flag.EVENT | this.codec.dubboSerializationId, 0, Math.floor(id / TWO_32), id >>> 0, this.codecs.nullBytes(this.codec)));
    }
  }
}

/** What OpenSSL's verification codes mean for a consumer. */
const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
]);

/**
 * Why a TLS connection failed, in words, with OpenSSL's reason; `undefined` when the error is not about TLS (a
 * refused TCP connection, a reset after the provider accepted us).
 */
function describeTlsFailure(error: Error & { code?: string; reason?: string }, secured: boolean): string | undefined {
  const code = error.code ?? '';
  const openssl = `${error.reason ?? error.message}${code === '' ? '' : `, ${code}`}`;
  if (UNKNOWN_AUTHORITY.has(code)) {
    return `the provider's certificate is signed by an unknown authority (not in ssl.client-trust-cert-collection-path, or the system's CAs when that is not set) (${openssl})`;
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return `the provider's certificate is not valid now (${openssl})`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the provider's certificate is not for the name checked (ssl.server-name, else the host) (${openssl})`;
  if (/CERTIFICATE_REQUIRED/.test(code)) return `the provider requires a client certificate (ssl.client-key-cert-chain-path, ssl.client-private-key-path) (${openssl})`;
  if (/ALERT_(UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|UNSUPPORTED_CERTIFICATE|ACCESS_DENIED|DECRYPT_ERROR)|ALERT_HANDSHAKE_FAILURE/.test(code)) {
    return `the provider refused the handshake or our client certificate (not signed by a CA it trusts?) (${openssl})`;
  }
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL|RECORD_LAYER_FAILURE/.test(code)) {
    return `the provider did not answer in TLS: is it serving plaintext? (${openssl})`;
  }
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return openssl;
  if (!secured && (code === 'ECONNRESET' || code === 'EPIPE')) {
    return `the connection closed during the handshake: is the provider serving plaintext dubbo? (${openssl})`;
  }
  return undefined;
}

/** The high and low 32-bit halves of a client request id. */
export function idHalves(id: number): [number, number] {
  return [Math.floor(id / TWO_32), id >>> 0];
}
