import { randomBytes } from 'node:crypto';

/** One logged-in browser. */
export interface AdminSession {
  /** The cookie value (random, 32 bytes, base64url). */
  readonly id: string;
  /** The CSRF token mutating requests must send in `x-csrf-token`. */
  readonly csrf: string;
  /** The remote address it logged in from. */
  readonly address: string;
  /** Last use, epoch ms. */
  lastSeen: number;
}

/** Options of {@link SessionStore}. */
export interface SessionStoreOptions {
  /** Idle time after which a session is dropped, ms. @defaultValue 8 h */
  readonly idleMs?: number;
  /** The most sessions kept; the least recently used goes first. @defaultValue 1000 */
  readonly maxSessions?: number;
  /** The clock. @defaultValue Date.now */
  readonly now?: () => number;
}

/**
 * The console's sessions: random ids, a CSRF token each, idle expiry, a bounded count.
 *
 * @remarks One store per server (no module state). A session unused for `idleMs` is gone; when `maxSessions` are
 * kept, a new login drops the least recently used one.
 * @example
 * ```ts
 * const store = new SessionStore();
 * const session = store.create('127.0.0.1');
 * store.get(session.id)?.csrf === session.csrf; // true
 * ```
 */
export class SessionStore {
  private readonly sessions = new Map<string, AdminSession>();
  private readonly idleMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: SessionStoreOptions = {}) {
    this.idleMs = options.idleMs ?? 8 * 60 * 60 * 1000;
    this.maxSessions = options.maxSessions ?? 1000;
    this.now = options.now ?? (() => Date.now());
  }

  /** Starts a session for a client at `address`. */
  create(address: string): AdminSession {
    this.sweep();
    while (this.sessions.size >= this.maxSessions) {
      const oldest = this.sessions.keys().next().value;
      if (oldest === undefined) break;
      this.sessions.delete(oldest);
    }
    const session: AdminSession = { id: randomBytes(32).toString('base64url'), csrf: randomBytes(32).toString('base64url'), address, lastSeen: this.now() };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The live session with that id (touching it), or `undefined`. */
  get(id: string | undefined): AdminSession | undefined {
    if (id === undefined || id === '') return undefined;
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    const now = this.now();
    if (now - session.lastSeen > this.idleMs) {
      this.sessions.delete(id);
      return undefined;
    }
    session.lastSeen = now;
    // re-insert: the map's order is the least recently used first
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  /** Ends a session. */
  delete(id: string): void {
    this.sessions.delete(id);
  }

  /** How many sessions are kept. */
  get size(): number {
    return this.sessions.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (now - session.lastSeen > this.idleMs) this.sessions.delete(id);
  }
}
