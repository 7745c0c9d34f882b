import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';

import type { Logger, WeftApplication } from '@weft/core';
import { safeLog } from '@weft/core/spi';

import { helpText, PermissionLevel, QOS_COMMANDS, QosArgumentError, type QosAnswer } from './qos-commands.js';

/** The settings of one application's QoS server (from `qos.*` keys). */
export interface QosSettings {
  readonly port: number;
  readonly host: string;
  readonly acceptForeignIp: boolean;
  /** IPs that count as `PROTECTED` callers. */
  readonly whitelist: readonly string[];
  /** The level of callers that are neither loopback nor whitelisted. */
  readonly anonymousLevel: number;
  /** Commands anyone may run. */
  readonly allowCommands: readonly string[];
}

/** Dubbo's answer to a foreign caller refused at the door. */
export const FOREIGN_IP_REFUSED = '\r\nForeign Ip Not Permitted, Consider Config It In Whitelist.\r\n';

function isLoopback(address: string): boolean {
  const ip = address.startsWith('::ffff:') ? address.slice(7) : address;
  return ip === '::1' || (isIP(ip) === 4 && ip.startsWith('127.'));
}

/**
 * The QoS HTTP endpoint of one application: `GET /<command>`, `/<command>/<arg>` or `/<command>?k=v…` (argument
 * values in query order), as Dubbo's QoS HTTP handler reads them.
 *
 * @remarks Answers `text/plain` with the command's status (probes: 200 `true` / 503 `false`), or JSON with
 * `Accept: application/json` or `?format=json`; unknown command → 404, permission → 403, bad argument → 400, failure
 * → 500 with the message. Callers: loopback `PRIVATE`, whitelisted `PROTECTED`, others the anonymous level (default
 * `PUBLIC`: probes only); with `qos.accept.foreign.ip=false` (default) foreign callers are refused outright.
 * @internal
 */
export class QosServer {
  private server: Server | undefined;

  constructor(
    private readonly app: () => WeftApplication | undefined,
    readonly settings: QosSettings,
    private readonly logger: Logger,
  ) {}

  /** The bound port (after {@link start}). */
  get port(): number | undefined {
    const address = this.server?.address();
    return typeof address === 'object' && address !== null ? address.port : undefined;
  }

  /** Listens; rejects when the port cannot be bound. */
  start(): Promise<void> {
    const server = createServer((request, response) => void this.handle(request, response));
    server.headersTimeout = 10_000;
    server.requestTimeout = 10_000;
    server.maxHeadersCount = 50;
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.settings.port, this.settings.host, () => {
        server.off('error', reject);
        server.on('error', (error) => safeLog(this.logger, 'warn', 'QoS server error', error));
        resolve();
      });
    });
  }

  /** Stops listening and closes open connections. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const remote = request.socket.remoteAddress ?? '';
    const level = isLoopback(remote) ? PermissionLevel.PRIVATE : this.settings.whitelist.includes(remote.replace(/^::ffff:/, '')) ? PermissionLevel.PROTECTED : this.settings.anonymousLevel;
    if (!this.settings.acceptForeignIp && level < PermissionLevel.PROTECTED) {
      this.send(response, 403, FOREIGN_IP_REFUSED, 'text/plain');
      return;
    }
    let path: string[];
    let query: URLSearchParams;
    try {
      const url = new globalThis.URL(request.url ?? '/', 'http://qos');
      path = url.pathname.split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part));
      query = url.searchParams;
    } catch {
      this.send(response, 404, '', 'text/plain');
      return;
    }
    const json = query.get('format') === 'json' || (request.headers.accept ?? '').includes('application/json');
    query.delete('format');
    const name = path[0] ?? '';
    const command = QOS_COMMANDS.get(name);
    if (command === undefined || path.length > 2) {
      this.send(response, 404, '', 'text/plain');
      return;
    }
    if (level < command.level && !this.settings.allowCommands.includes(name)) {
      this.send(response, 403, '', 'text/plain');
      return;
    }
    const args = path.length === 2 ? [path[1] as string] : [...query.values()];
    const app = this.app();
    let answer: QosAnswer;
    try {
      if (app === undefined) throw new Error('the application is not available');
      answer = name === 'help' ? helpText(args[0]) : await command.run(app, args);
    } catch (error) {
      const status = error instanceof QosArgumentError ? 400 : 500;
      this.send(response, status, json ? JSON.stringify({ error: (error as Error).message }) : (error as Error).message, json ? 'application/json' : 'text/plain');
      return;
    }
    if (json) this.send(response, answer.status, JSON.stringify(answer.json), 'application/json');
    else this.send(response, answer.status, answer.text, 'text/plain');
  }

  private send(response: ServerResponse, status: number, body: string, type: string): void {
    response.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'content-length': Buffer.byteLength(body), connection: 'close' });
    response.end(body);
  }
}
