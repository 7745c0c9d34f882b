import http2, { type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';

import { BufferBudget } from './buffer-budget.js';

const { NGHTTP2_NO_ERROR, NGHTTP2_PROTOCOL_ERROR } = http2.constants;
const IDLE_DEBUG = Buffer.from('weft: idle timeout', 'latin1');
const HEADER_DEBUG = Buffer.from('weft: header timeout', 'latin1');

/**
 * Timeouts and the buffered-bytes budget of one HTTP/2 connection on a Triple server.
 *
 * @remarks
 * One timer per connection, ticking every half `headerTimeout` (or `idleTimeout`, when shorter):
 * - the client must complete the preface (its SETTINGS) within `headerTimeout` of the sniff, else the connection is
 *   destroyed;
 * - a header block the HTTP/2 parser began (`lastProcStreamID` past the last stream the server saw) but that stays
 *   unfinished for `headerTimeout` gets GOAWAY(PROTOCOL_ERROR) and the connection is closed;
 * - a connection with no open stream for `idleTimeout` gets GOAWAY(NO_ERROR) and is closed (its client reconnects
 *   when it needs to).
 * Streams are counted with one shared `close` listener; the per-call cost is a counter and a `Date.now()`.
 *
 * @example
 * ```ts
 * const guard = new SessionGuard(session, { idleTimeout: 180_000, headerTimeout: 10_000 }, serverBudget, 32 << 20);
 * guard.opened(stream);
 * ```
 */
export class SessionGuard {
  /** Buffered bytes of this connection (draws from the server's budget). */
  readonly budget: BufferBudget;
  private open = 0;
  private maxStreamId = 0;
  private idleSince = Date.now();
  private readonly startedAt = Date.now();
  private settings = false;
  private unfinishedSince = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly session: ServerHttp2Session,
    private readonly timeouts: { readonly idleTimeout: number; readonly headerTimeout: number },
    serverBudget: BufferBudget,
    connectionLimit: number,
  ) {
    this.budget = new BufferBudget(connectionLimit, 'connection', 'max-connection-buffer', serverBudget);
    session.once('remoteSettings', () => (this.settings = true));
    const period = Math.max(10, Math.min(timeouts.headerTimeout / 2, timeouts.idleTimeout / 2));
    this.timer = setInterval(() => this.tick(), period);
    this.timer.unref();
    session.once('close', () => clearInterval(this.timer));
  }

  /** A stream opened on this connection (its `close` is counted by `closed`). */
  opened(stream: ServerHttp2Stream): void {
    this.open++;
    const id = stream.id ?? 0;
    if (id > this.maxStreamId) this.maxStreamId = id;
  }

  closed(): void {
    if (--this.open === 0) this.idleSince = Date.now();
  }

  private tick(): void {
    const session = this.session;
    if (session.destroyed) {
      clearInterval(this.timer);
      return;
    }
    const now = Date.now();
    const { headerTimeout, idleTimeout } = this.timeouts;
    if (!this.settings) {
      if (now - this.startedAt >= headerTimeout) session.destroy();
      return;
    }
    let lastProc = 0;
    try {
      lastProc = session.state.lastProcStreamID ?? 0;
    } catch {
      // Closed meanwhile.
    }
    if (lastProc > this.maxStreamId) {
      if (this.unfinishedSince === 0) this.unfinishedSince = now;
      else if (now - this.unfinishedSince >= headerTimeout) {
        this.shut(NGHTTP2_PROTOCOL_ERROR, HEADER_DEBUG);
        return;
      }
    } else this.unfinishedSince = 0;
    if (this.open === 0 && now - this.idleSince >= idleTimeout) this.shut(NGHTTP2_NO_ERROR, IDLE_DEBUG);
  }

  private shut(code: number, debug: Buffer): void {
    clearInterval(this.timer);
    const session = this.session;
    try {
      session.goaway(code, this.maxStreamId, debug);
      session.close();
    } catch {
      // Already destroyed.
    }
    // A peer that does not close its side is cut off after a short grace.
    setTimeout(() => session.destroy(), 1000).unref();
  }
}
