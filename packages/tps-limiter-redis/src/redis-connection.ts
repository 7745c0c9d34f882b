import type { Logger } from '@weft/core';
import { safeLog } from '@weft/core/spi';
import { Redis } from 'ioredis';

import { FIXED_WINDOW_LUA, SLIDING_LOG_LUA } from './lua-scripts.js';
import type { RedisTpsSettings, RedisWindowKind } from './redis-tps-settings.js';

/** The scripts, as ioredis `defineCommand` exposes them on the client. */
interface TpsCommands {
  weftTpsFixed(key: string, rate: number, interval: number): Promise<number>;
  weftTpsSliding(key: string, rate: number, interval: number, member: string): Promise<number>;
}

/** At most one "cannot answer" warning per connection in this many ms (the others are counted). */
const WARN_EVERY_MS = 10_000;
/** Reconnect backoff: 50 ms doubling up to this, with ±20 % jitter so a fleet does not reconnect in step. */
const MAX_BACKOFF_MS = 2_000;

/**
 * One ioredis client of the `redis` limiter: its commands, its health, and its rate-limited warnings.
 *
 * @remarks
 * Internal to the limiter, one per Redis address (and command timeout) per application. The client never queues
 * a command while disconnected (`enableOfflineQueue: false`): a decision is either sent to a connected Redis and
 * bounded by the command timeout, or answered by the error policy at once. Only while the very first connection
 * attempt is under way does a decision wait for it, again at most the command timeout. Reconnects forever with capped backoff.
 * @internal
 */
export class RedisConnection {
  private readonly client: Redis & TpsCommands;
  private ready = false;
  /** Whether the first connection attempt has ended (connected or failed): from then on no decision waits to connect. */
  private firstAttemptOver = false;
  private readonly firstReady: Promise<void>;
  private failing = false;
  private lastWarning = Number.NEGATIVE_INFINITY;
  private suppressed = 0;
  private closed = false;

  constructor(
    private readonly settings: RedisTpsSettings,
    private readonly logger: Logger,
  ) {
    const client = new Redis(settings.address, {
      commandTimeout: settings.timeout,
      connectTimeout: Math.max(1_000, settings.timeout * 10),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      enableAutoPipelining: true,
      connectionName: 'weft-tps-limiter',
      retryStrategy: (times: number) => Math.round(Math.min(50 * 2 ** Math.min(times - 1, 10), MAX_BACKOFF_MS) * (0.8 + Math.random() * 0.4)),
      scripts: {
        weftTpsFixed: { numberOfKeys: 1, lua: FIXED_WINDOW_LUA },
        weftTpsSliding: { numberOfKeys: 1, lua: SLIDING_LOG_LUA },
      },
    });
    // `defineCommand` (the `scripts` option) adds these methods; ioredis' types cannot know their names.
    this.client = client as Redis & TpsCommands;
    this.firstReady = new Promise((resolve) => client.once('ready', () => resolve()));
    client.on('ready', () => {
      this.ready = true;
      this.firstAttemptOver = true;
      if (this.failing) {
        this.failing = false;
        safeLog(this.logger, 'info', `tps.limiter=redis: Redis at ${this.settings.maskedAddress} answers again; the shared tps windows apply again.`);
      }
    });
    const down = () => {
      this.ready = false;
      this.firstAttemptOver = true;
    };
    client.on('close', down);
    client.on('end', down);
    client.on('error', (error: Error) => {
      this.firstAttemptOver = true;
      this.noteFailure(error);
    });
  }

  /**
   * Sends one decision to Redis: `1` admitted, `0` refused. `undefined` when Redis is known to be unreachable
   * right now (the caller applies the error policy without waiting).
   */
  decide(window: RedisWindowKind, key: string, rate: number, interval: number, member: string): Promise<number> | undefined {
    if (this.ready) return this.send(window, key, rate, interval, member);
    if (this.firstAttemptOver || this.closed) return undefined;
    return this.untilFirstReady().then(() => this.send(window, key, rate, interval, member));
  }

  /**
   * Notes that Redis could not answer, and warns — at most once per 10 s per connection, counting the rest.
   * Returns the reason as a message without secrets.
   */
  noteFailure(error: unknown, what = ''): string {
    const reason = this.reasonOf(error);
    this.failing = true;
    const now = performance.now();
    if (now - this.lastWarning < WARN_EVERY_MS) {
      this.suppressed++;
      return reason;
    }
    const more = this.suppressed > 0 ? ` (${this.suppressed} more failures since the last warning)` : '';
    this.lastWarning = now;
    this.suppressed = 0;
    safeLog(
      this.logger,
      'warn',
      `tps.limiter=redis: Redis at ${this.settings.maskedAddress} cannot answer (${reason}); tps.redis.on-error=${this.settings.onError} ` +
        `applies${what === '' ? '' : ` to ${what}`} until it answers again, reconnecting in the background${more}.`,
    );
    return reason;
  }

  /** Closes the client: `QUIT` when connected (bounded by one second), else at once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.client.status === 'ready') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.client.quit().catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, 1_000))),
      ]);
      clearTimeout(timer);
    }
    this.client.disconnect();
  }

  private send(window: RedisWindowKind, key: string, rate: number, interval: number, member: string): Promise<number> {
    return window === 'fixed' ? this.client.weftTpsFixed(key, rate, interval) : this.client.weftTpsSliding(key, rate, interval, member);
  }

  private untilFirstReady(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not connected within ${this.settings.timeout} ms`)), this.settings.timeout);
    });
    return Promise.race([this.firstReady, timeout]).finally(() => clearTimeout(timer));
  }

  /** An error's message with any password of the address removed. */
  private reasonOf(error: unknown): string {
    let message = error instanceof Error ? error.message : String(error);
    const password = passwordOf(this.settings.address);
    if (password !== '') message = message.split(password).join('***');
    return message.length > 200 ? `${message.slice(0, 200)}…` : message;
  }
}

function passwordOf(address: string): string {
  const at = /^[a-z]+:\/\/([^/@]*)@/i.exec(address);
  if (at === null) return '';
  const userInfo = at[1] ?? '';
  const colon = userInfo.indexOf(':');
  return colon < 0 ? '' : userInfo.slice(colon + 1);
}
