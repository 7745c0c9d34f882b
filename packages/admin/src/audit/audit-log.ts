import { appendFile } from 'node:fs/promises';

import type { Logger } from '@weft/core';

/** One applied action. */
export interface AuditEntry {
  /** When, ISO 8601. */
  readonly at: string;
  /** The session: remote address and the first characters of the session id. */
  readonly who: string;
  /** `mock.set`, `mock.remove`, `override.set`, `provider.disable`, `provider.enable`, `route.set`, `route.remove`, `breaker.set`. */
  readonly action: string;
  readonly service: string;
  /** The exact rule URL(s) or text written or deleted. */
  readonly rule: string;
  /** The same change as ZooKeeper's zkCli commands. */
  readonly zkCli: string;
  /** The same change as a `weft` command line. */
  readonly cli: string;
}

/**
 * The console's audit trail: the last entries in memory (newest first), appended as JSON lines to a file when one
 * is given, and logged at level info.
 *
 * @remarks Bounded: the newest `max` entries are kept in memory; the file keeps them all. A failing file write is
 * logged, never fails the action (which is applied already).
 * @example
 * ```ts
 * const audit = new AuditLog(logger, '/var/log/weft-admin.jsonl');
 * await audit.record({ at: new Date().toISOString(), who: '127.0.0.1 #ab12cd', action: 'mock.set', service: 'S', rule: '…', zkCli: '…', cli: '…' });
 * ```
 */
export class AuditLog {
  private readonly entries: AuditEntry[] = [];

  constructor(
    private readonly logger: Logger,
    private readonly file: string | undefined,
    private readonly max = 1000,
  ) {}

  /** Records an entry. */
  async record(entry: AuditEntry): Promise<void> {
    this.entries.unshift(entry);
    if (this.entries.length > this.max) this.entries.length = this.max;
    try {
      this.logger.info(`weft admin: ${entry.who} ${entry.action} ${entry.service}: ${entry.rule}`);
    } catch {
      // a logger that throws never fails the action
    }
    if (this.file !== undefined) {
      try {
        await appendFile(this.file, `${JSON.stringify(entry)}\n`, 'utf8');
      } catch (error) {
        try {
          this.logger.warn(`weft admin: cannot append to the audit file ${this.file}`, error);
        } catch {
          // ignore
        }
      }
    }
  }

  /** The entries, newest first. */
  list(): readonly AuditEntry[] {
    return [...this.entries];
  }
}
