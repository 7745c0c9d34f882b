import type { Logger } from '@weft/core';

/**
 * Options of {@link startAdmin}.
 *
 * @example
 * ```ts
 * const options: AdminOptions = { registry: 'zookeeper://127.0.0.1:2181', port: 8088 };
 * ```
 */
export interface AdminOptions {
  /** The registry to govern: `zookeeper://host:port` or `embedded:///dir`. */
  readonly registry: string;
  /** Address to bind. A non-loopback address needs `allowRemote`. @defaultValue '127.0.0.1' */
  readonly host?: string;
  /** Port; `0` picks a free one. @defaultValue 8088 */
  readonly port?: number;
  /** The login token. @defaultValue `$WEFT_ADMIN_TOKEN`, else a random one (returned in {@link AdminServer.token}) */
  readonly token?: string;
  /** Allow binding a non-loopback address (the console then answers the network: put TLS in front). @defaultValue false */
  readonly allowRemote?: boolean;
  /** Extra Prometheus endpoints to scrape (`http://host:port/metrics`), besides those registrations announce. */
  readonly metrics?: readonly string[];
  /** How often the metrics endpoints are scraped, ms. @defaultValue 5000 */
  readonly scrapeInterval?: number;
  /** A file the audit entries are appended to, one JSON object a line. */
  readonly auditFile?: string;
  /** Where log lines go. @defaultValue a console logger at level info */
  readonly logger?: Logger;
  /**
   * The package directory extension discovery starts from (registry clients, validators, routers).
   * @defaultValue `@weft/admin`'s own package directory
   */
  readonly root?: string;
  /** Milliseconds each registry operation may take. @defaultValue 5000 */
  readonly registryTimeout?: number;
  /** The folder of the built web UI. @defaultValue `dist/ui/` of the package */
  readonly uiDir?: string;
}

/**
 * A running console.
 *
 * @example
 * ```ts
 * const admin = await startAdmin({ registry: 'embedded://', port: 0 });
 * console.log(admin.url, admin.token);
 * await admin.close();
 * ```
 */
export interface AdminServer {
  /** `http://127.0.0.1:8088`. */
  readonly url: string;
  /** The login token (given, from the environment, or generated). */
  readonly token: string;
  /** Whether the token was generated (so a launcher prints it). */
  readonly generatedToken: boolean;
  /** Stops the server, the scraper and the registry client. */
  close(): Promise<void>;
}
