import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import tls, { type SecureContext, type SecureContextOptions, type TLSSocket } from 'node:tls';

import { safeLog, type Logger } from '../common/logger.js';
import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import type { PeerCertificate } from '../rpc/caller-identity.js';
import type { URL } from '../rpc/url.js';
import { TlsKeys, tlsRequested } from './tls-keys.js';

/** How often certificate files are checked for changes, in ms. */
const RELOAD_POLL_INTERVAL = 1000;

interface FileRole {
  readonly key: string;
  readonly path: string;
  readonly option: 'cert' | 'key' | 'ca';
}

/**
 * The certificates of one side of a TLS connection, read from the files the `ssl.*` URL keys name, and re-read when
 * those files change.
 *
 * @remarks
 * Created at export (provider) or refer (consumer), so a missing, unreadable or inconsistent file fails there with a
 * message naming the key and the path. While in use, the files are polled every second: a change (a renewed
 * certificate, a rotated key, a Kubernetes secret swapped under its symlink) takes effect for new connections once
 * the new set loads; a set that fails to load (a key written before its certificate) is reported and the previous
 * one stays in use. A provider with a trust collection requires client certificates chaining to it (mTLS).
 * @example
 * ```ts
 * const material = TlsMaterial.forProvider(url, 'org.acme.Greeter', logger);
 * const server = material?.createServer(['h2', 'http/1.1'], 10_000, (socket) => handle(socket));
 * ```
 */
export class TlsMaterial {
  /** Whether a provider requires client certificates (a trust collection is configured). */
  readonly mutual: boolean;
  /** What identifies these settings: services sharing a port (or a connection) must agree on it. */
  readonly identity: string;
  private currentOptions: SecureContextOptions;
  private currentContext: SecureContext;
  private readonly listeners = new Set<(options: SecureContextOptions) => void>();
  private readonly pollers = new Map<string, (current: Stats, previous: Stats) => void>();
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;
  private closed = false;

  private constructor(
    readonly side: 'provider' | 'consumer',
    private readonly where: string,
    private readonly files: readonly FileRole[],
    private readonly passphrase: string | undefined,
    /** The name a provider's certificate must carry (consumer side). */
    readonly serverName: string | undefined,
    private readonly logger: Logger,
  ) {
    this.mutual = side === 'provider' && files.some((file) => file.option === 'ca');
    this.identity = [side, ...files.map((file) => `${file.key}=${file.path}`), `name=${serverName ?? ''}`, `pass=${passphrase === undefined ? 0 : 1}`].join('|');
    this.currentOptions = this.build(files.map((file) => [file, readOrThrow(file, where)] as const));
    this.currentContext = tls.createSecureContext(this.currentOptions);
  }

  /**
   * The provider material of `url`, or `undefined` when it does not ask for TLS.
   * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER` naming the missing, unreadable or mismatched key.
   */
  static forProvider(url: URL, where: string, logger: Logger): TlsMaterial | undefined {
    if (!tlsRequested(url, 'provider', where)) return undefined;
    const files = roles(url, [
      [TlsKeys.SERVER_CERT, 'cert'],
      [TlsKeys.SERVER_KEY, 'key'],
      [TlsKeys.SERVER_TRUST, 'ca'],
    ]);
    return new TlsMaterial('provider', where, files, nonEmpty(url.getParameter(TlsKeys.SERVER_KEY_PASSWORD)), undefined, logger);
  }

  /**
   * The consumer material of `url`, or `undefined` when it does not ask for TLS.
   * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER` naming the unreadable or mismatched key.
   */
  static forConsumer(url: URL, where: string, logger: Logger): TlsMaterial | undefined {
    if (!tlsRequested(url, 'consumer', where)) return undefined;
    const files = roles(url, [
      [TlsKeys.CLIENT_CERT, 'cert'],
      [TlsKeys.CLIENT_KEY, 'key'],
      [TlsKeys.CLIENT_TRUST, 'ca'],
    ]);
    return new TlsMaterial(
      'consumer',
      where,
      files,
      nonEmpty(url.getParameter(TlsKeys.CLIENT_KEY_PASSWORD)),
      nonEmpty(url.getParameter(TlsKeys.SERVER_NAME)),
      logger,
    );
  }

  /** The options of the certificates in use (the last set that loaded). */
  get options(): SecureContextOptions {
    return this.currentOptions;
  }

  /** The secure context of the certificates in use. */
  get context(): SecureContext {
    return this.currentContext;
  }

  /**
   * A TLS server for these certificates: ALPN `alpn`, client certificates required under mTLS, handshakes bounded by
   * `handshakeTimeout`; its secure context follows the files. Failed handshakes are dropped (logged at debug).
   */
  createServer(alpn: readonly string[], handshakeTimeout: number, onConnection: (socket: TLSSocket) => void): tls.Server {
    const server = tls.createServer(
      {
        ...this.currentOptions,
        ALPNProtocols: [...alpn],
        requestCert: this.mutual,
        rejectUnauthorized: this.mutual,
        handshakeTimeout,
      },
      onConnection,
    );
    server.on('tlsClientError', (error: Error, socket: TLSSocket) => {
      safeLog(this.logger, 'debug', `${this.where}: TLS handshake with ${socket.remoteAddress ?? 'a client'} failed: ${error.message}`);
      socket.destroy();
    });
    const update = (options: SecureContextOptions) => server.setSecureContext({ ...options });
    this.listeners.add(update);
    server.once('close', () => this.listeners.delete(update));
    this.watch();
    return server;
  }

  /**
   * Opens a TLS connection to a provider with these certificates: the provider's certificate must chain to the trust
   * collection and carry `ssl.server-name` (else the host); `alpn` is offered and, when given, must be agreed to.
   */
  connect(host: string, port: number, alpn: readonly string[]): TLSSocket {
    const name = this.serverName;
    const socket = tls.connect({
      host,
      port,
      secureContext: this.currentContext,
      ALPNProtocols: [...alpn],
      rejectUnauthorized: true,
      // SNI carries names only (RFC 6066); an IP address is checked against the certificate's IP SANs instead.
      ...(name !== undefined ? { servername: name } : isIP(host) === 0 ? { servername: host } : {}),
      ...(name !== undefined ? { checkServerIdentity: (_host: string, cert: tls.PeerCertificate) => tls.checkServerIdentity(name, cert) } : {}),
    });
    if (alpn.length > 0) {
      socket.once('secureConnect', () => {
        if (typeof socket.alpnProtocol !== 'string' || !alpn.includes(socket.alpnProtocol)) {
          socket.destroy(new Error(`${host}:${port} did not agree to ${alpn.join(' or ')} in the TLS handshake (ALPN): it is not a ${alpn.join('/')} server`));
        }
      });
    }
    this.watch();
    return socket;
  }

  /** Stops following the files (the material stays usable with what it holds). */
  close(): void {
    this.closed = true;
    this.listeners.clear();
    for (const [path, poller] of this.pollers) unwatchFile(path, poller);
    this.pollers.clear();
  }

  private watch(): void {
    if (this.closed || this.pollers.size > 0) return;
    for (const file of this.files) {
      if (this.pollers.has(file.path)) continue;
      const poller = (current: Stats, previous: Stats) => {
        if (current.mtimeMs !== previous.mtimeMs || current.size !== previous.size || current.ino !== previous.ino) this.reload();
      };
      this.pollers.set(file.path, poller);
      watchFile(file.path, { interval: RELOAD_POLL_INTERVAL, persistent: false }, poller);
    }
  }

  private reload(): void {
    if (this.reloading !== undefined) {
      this.reloadAgain = true;
      return;
    }
    this.reloading = this.doReload().finally(() => {
      this.reloading = undefined;
      if (this.reloadAgain && !this.closed) {
        this.reloadAgain = false;
        this.reload();
      }
    });
  }

  private async doReload(): Promise<void> {
    try {
      const contents = await Promise.all(this.files.map(async (file) => [file, await readFile(file.path)] as const));
      const options = this.build(contents.map(([file, data]) => [file, checkedPem(file, data, this.where)] as const));
      const context = tls.createSecureContext(options);
      if (this.closed) return;
      this.currentOptions = options;
      this.currentContext = context;
      for (const listener of this.listeners) listener(options);
      safeLog(this.logger, 'info', `${this.where}: TLS certificates reloaded (${this.files.map((file) => file.path).join(', ')}).`);
    } catch (error) {
      safeLog(this.logger, 'warn', `${this.where}: the changed TLS files do not load (${describeTlsError(error)}); the previous certificates stay in use until they do.`);
    }
  }

  private build(contents: readonly (readonly [FileRole, Buffer])[]): SecureContextOptions {
    const options: { cert?: Buffer; key?: Buffer; ca?: Buffer; passphrase?: string } = {};
    for (const [file, data] of contents) options[file.option] = data;
    if (this.passphrase !== undefined) options.passphrase = this.passphrase;
    try {
      tls.createSecureContext(options);
    } catch (error) {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${this.where}: the TLS files cannot be used: ${explain(error, this.files, this.side)}.`, {
        cause: error,
      });
    }
    return options;
  }
}

/**
 * The verified certificate of a TLS connection's peer, or `undefined` when it presented none (or the connection is
 * not TLS).
 *
 * @example
 * ```ts
 * const certificate = peerCertificateOfSocket(session.socket as TLSSocket);
 * ```
 */
export function peerCertificateOfSocket(socket: unknown): PeerCertificate | undefined {
  const tlsSocket = socket as Partial<TLSSocket> | undefined;
  if (typeof tlsSocket?.getPeerCertificate !== 'function' || tlsSocket.authorized !== true) return undefined;
  const raw = tlsSocket.getPeerCertificate(false);
  if (raw === null || raw === undefined || Object.keys(raw).length === 0) return undefined;
  const cn = raw.subject?.CN;
  return {
    subject: formatName(raw.subject),
    commonName: Array.isArray(cn) ? cn[0] : cn,
    subjectAltNames: raw.subjectaltname === undefined ? [] : raw.subjectaltname.split(/,\s*/).filter((name) => name !== ''),
    issuer: formatName(raw.issuer),
    fingerprint256: raw.fingerprint256 ?? '',
    serialNumber: raw.serialNumber ?? '',
    validTo: new Date(raw.valid_to).toISOString(),
  };
}

function formatName(name: tls.Certificate | undefined): string {
  if (name === undefined) return '';
  return Object.entries(name)
    .flatMap(([key, value]) => (Array.isArray(value) ? value.map((v: string) => `${key}=${v}`) : [`${key}=${String(value)}`]))
    .join(', ');
}

function roles(url: URL, pairs: readonly (readonly [string, FileRole['option']])[]): FileRole[] {
  const files: FileRole[] = [];
  for (const [key, option] of pairs) {
    const path = nonEmpty(url.getParameter(key));
    if (path !== undefined) files.push({ key, path, option });
  }
  return files;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function readOrThrow(file: FileRole, where: string): Buffer {
  let data: Buffer;
  try {
    data = readFileSync(file.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message;
    throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: cannot read ${file.key}=${file.path}: ${reason}.`, { cause: error });
  }
  return checkedPem(file, data, where);
}

function checkedPem(file: FileRole, data: Buffer, where: string): Buffer {
  if (!/-----BEGIN [A-Z0-9 ]+-----/.test(data.toString('latin1'))) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `${where}: ${file.key}=${file.path} is not a PEM file (expected "-----BEGIN ${file.option === 'key' ? 'PRIVATE KEY' : 'CERTIFICATE'}-----").`,
    );
  }
  return data;
}

/** What an OpenSSL error means for the configured keys. */
function explain(error: unknown, files: readonly FileRole[], side: 'provider' | 'consumer'): string {
  const message = describeTlsError(error);
  const key = files.find((file) => file.option === 'key')?.key;
  const cert = files.find((file) => file.option === 'cert')?.key;
  const password = side === 'provider' ? TlsKeys.SERVER_KEY_PASSWORD : TlsKeys.CLIENT_KEY_PASSWORD;
  if (/key values mismatch/i.test(message)) return `the private key (${key}) does not belong to the certificate (${cert})`;
  if (/bad decrypt|bad password|interrupted or cancelled|maybe wrong password/i.test(message)) {
    return `the private key (${key}) is encrypted and ${password} is missing or wrong`;
  }
  if (/no start line|bad base64|wrong tag|header too long|too long/i.test(message)) return `a file is not valid PEM (${message})`;
  return message;
}

function describeTlsError(error: unknown): string {
  return error instanceof ExtensionError ? error.message : error instanceof Error ? error.message.replace(/^error:[0-9A-F]+:/i, '') : String(error);
}
