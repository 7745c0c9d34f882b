import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ConsoleLogger, maskUrlText, readRegistrations, RegistrySession, URL } from '@weft/core';

import { ActionApi } from '../api/action-api.js';
import { routeApi } from '../api/api-router.js';
import { ReadApi } from '../api/read-api.js';
import { AuditLog } from '../audit/audit-log.js';
import { MetricsScraper } from '../metrics/metrics-scraper.js';
import { ServiceView } from '../registry/service-view.js';
import type { AdminOptions, AdminServer } from './admin-options.js';
import { AdminHttp } from './admin-http.js';
import { StaticFiles } from './static-files.js';

/** The registration key announcing a Prometheus endpoint's port (`http://<host>:<metrics.port>/metrics`). */
export const METRICS_PORT_KEY = 'metrics.port';

/** `@weft/admin`'s own package directory. */
function packageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@weft/admin') return dir;
      } catch {
        // keep looking
      }
    }
    dir = dirname(dir);
  }
  throw new Error('cannot find the @weft/admin package directory');
}

/** Whether `host` is a loopback address or `localhost`. */
function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/**
 * Starts the Weft console: a web UI and a JSON API over one registry (ZooKeeper or embedded), on loopback by
 * default, behind a token login with sessions and CSRF protection.
 *
 * @remarks
 * The registry client, validators and routers are found by extension discovery from `root` (the console's own
 * package by default) through core's `RegistrySession`, as `weft override` and `weft route` do; every action writes
 * the rules those commands write, validated the same way. Binding a non-loopback `host` needs `allowRemote`. The
 * token is `token`, else `$WEFT_ADMIN_TOKEN`, else 32 random bytes (then `generatedToken` is true). Metrics are
 * scraped every `scrapeInterval` from `metrics` and from registrations carrying `metrics.port`. Everything lives in
 * the returned server's scope; `close()` ends the HTTP server, its connections, the scraper and the registry client.
 * @example
 * ```ts
 * const admin = await startAdmin({ registry: 'zookeeper://127.0.0.1:2181', port: 0 });
 * console.log(`Weft admin on ${admin.url} (token: ${admin.token})`);
 * await admin.close();
 * ```
 * @throws `Error` for a non-loopback host without `allowRemote`, a registry URL that does not parse, or a port in use;
 * `RpcError` `network` when no registry client speaks the protocol.
 */
export async function startAdmin(options: AdminOptions): Promise<AdminServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  if (!loopback && options.allowRemote !== true) {
    throw new Error(
      `weft admin: refusing to listen on ${host}: it is not a loopback address, and the console governs every service of the registry. ` +
        'Pass allowRemote: true (weft admin --allow-remote) to answer the network, and put TLS in front of it.',
    );
  }
  const port = options.port ?? 8088;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`weft admin: port ${String(port)} is not a port number (0 … 65535; 0 picks a free one)`);
  const envToken = process.env['WEFT_ADMIN_TOKEN'];
  const given = options.token ?? (envToken !== undefined && envToken !== '' ? envToken : undefined);
  if (given !== undefined && given.length < 8) throw new Error('weft admin: the token is shorter than 8 characters; choose a longer one (or leave it out: one is generated)');
  const token = given ?? randomBytes(24).toString('base64url');
  const logger = options.logger ?? new ConsoleLogger('weft-admin');
  let registryUrl: URL;
  try {
    registryUrl = URL.parse(options.registry);
  } catch (error) {
    throw new Error(`weft admin: cannot parse the registry URL "${maskUrlText(options.registry)}": ${(error as Error).message}`);
  }
  if (registryUrl.protocol === '') throw new Error(`weft admin: the registry URL "${maskUrlText(options.registry)}" has no protocol (zookeeper://host:port, embedded:///dir)`);
  const dir = packageDir();
  const session = await RegistrySession.open(registryUrl, { root: options.root ?? dir, timeout: options.registryTimeout ?? 5000, application: 'weft-admin' });
  const view = new ServiceView(session);
  const audit = new AuditLog(logger, options.auditFile);
  const scraper = new MetricsScraper({
    endpoints: options.metrics ?? [],
    interval: options.scrapeInterval ?? 5000,
    logger,
    discover: async () => {
      const found = new Set<string>();
      for (const service of (await view.services()).slice(0, 500)) {
        const { providers, consumers } = await readRegistrations(session, service);
        for (const url of [...providers, ...consumers]) {
          const p = Number(url.getParameter(METRICS_PORT_KEY) ?? NaN);
          if (Number.isInteger(p) && p > 0 && p < 65536 && url.host !== '') found.add(`http://${url.host.includes(':') ? `[${url.host}]` : url.host}:${p}/metrics`);
        }
      }
      return [...found];
    },
  });
  const reads = new ReadApi(view, scraper, audit);
  const actions = new ActionApi({ session, view, audit, registryText: maskUrlText(options.registry), logger });
  let origins = new Set<string>();
  let hosts: Set<string> | undefined;
  const front = new AdminHttp({
    token,
    logger,
    files: new StaticFiles(options.uiDir ?? join(dir, 'dist', 'ui')),
    api: (request) => routeApi(request, reads, actions),
    origins: () => origins,
    hosts: () => hosts,
  });
  const server: Server = createServer((req, res) => void front.handle(req, res));
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await session.close();
    throw new Error(`weft admin: cannot listen on ${host}:${port}: ${(error as Error).message}`);
  }
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${bound}`;
  const names = loopback ? [shown, 'localhost', '127.0.0.1', '[::1]'] : [shown];
  origins = new Set(names.map((n) => `http://${n}:${bound}`));
  hosts = options.allowRemote === true ? undefined : new Set(names.map((n) => `${n}:${bound}`.toLowerCase()));
  scraper.start();
  let closing: Promise<void> | undefined;
  return {
    url,
    token,
    generatedToken: given === undefined,
    close() {
      closing ??= (async () => {
        await scraper.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await session.close();
      })();
      return closing;
    },
  };
}
