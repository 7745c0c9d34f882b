import zookeeper, { type Client, type ZkException, type ZkStat } from 'node-zookeeper-client';

import { RpcError, RpcErrorCode } from '@weft/core';

/** Where a {@link ZookeeperClient} stands with its server. */
export type ZookeeperConnectionState = 'connecting' | 'connected' | 'disconnected' | 'expired' | 'auth-failed' | 'closed';

/** Options of a {@link ZookeeperClient}. */
export interface ZookeeperClientOptions {
  /** The servers: `host:port[,host:port…]`. */
  readonly connectString: string;
  /** Session timeout asked from the server, in ms (the server clamps it to its own bounds). @defaultValue 60000 */
  readonly sessionTimeout?: number;
  /**
   * How long operations wait for the **first** connection, in ms; once that has passed (or after a later
   * disconnect) operations fail at once while disconnected. Also the bound of a single operation.
   * @defaultValue 30000
   */
  readonly connectionTimeout?: number;
  /** `user:password` for ZooKeeper's `digest` scheme; nodes are then created with the creator-only ACL. */
  readonly auth?: string;
  /** Resumes an existing session (its id and password) instead of creating one. */
  readonly session?: ZookeeperSession;
}

/** A ZooKeeper session's credentials. */
export interface ZookeeperSession {
  /** The 8-byte session id. */
  readonly id: Buffer;
  /** The 16-byte session password. */
  readonly password: Buffer;
}

/** What {@link ZookeeperClient.exists} reports about a node. */
export interface ZookeeperNodeStat {
  /** The owning session's id in hex, for an ephemeral node; `undefined` for a persistent one. */
  readonly ephemeralOwner: string | undefined;
  /** The data version. */
  readonly version: number;
  /** The number of children. */
  readonly numChildren: number;
}

/** A one-shot watch callback: called once when the watched node (or its children) changes. */
export type ZookeeperWatcher = () => void;

/**
 * A failed ZooKeeper operation: an `RpcError` with code `registry`, plus ZooKeeper's own error name.
 *
 * @remarks `zkCode` is ZooKeeper's name for the failure (`NO_NODE`, `NODE_EXISTS`, `NOT_EMPTY`, `CONNECTION_LOSS`,
 * `SESSION_EXPIRED`, `NO_AUTH`, …), or `NOT_CONNECTED` when the client refused to send the operation because it
 * is not connected, or `OPERATION_TIMEOUT` when no answer came in time.
 * @example
 * ```ts
 * try { await client.create('/a/b'); } catch (e) { if (e instanceof ZookeeperError && e.zkCode === 'NO_NODE') … }
 * ```
 */
export class ZookeeperError extends RpcError {
  constructor(
    /** ZooKeeper's name of the failure. */
    readonly zkCode: string,
    message: string,
    cause?: unknown,
  ) {
    super(RpcErrorCode.REGISTRY, message, cause === undefined ? {} : { cause });
    this.name = 'ZookeeperError';
  }
}

const NO_SESSION = '0000000000000000';

/**
 * A small promise-based ZooKeeper client (over `node-zookeeper-client`): connection state, one-shot watches,
 * `mkdirp`, and a working recursive delete.
 *
 * @remarks
 * Used by {@link ZookeeperRegistry}, and handy for tools and tests that write nodes the way operators do. The
 * client connects at construction and reconnects by itself (same session) until the server declares the
 * session expired; it then stays `expired` — create a new client. Operations issued while disconnected fail at
 * once with `NOT_CONNECTED`, except during the first `connectionTimeout` ms, when they wait for the first
 * connection. Watches are the library's: one-shot, re-sent to the server after a reconnect, and deduplicated
 * per path and watcher function.
 * @example
 * ```ts
 * const client = new ZookeeperClient({ connectString: '127.0.0.1:2181', connectionTimeout: 5000 });
 * await client.writeData('/dubbo/config/dubbo/shop.configurators', yamlText);
 * await client.close();
 * ```
 */
export class ZookeeperClient {
  private readonly client: Client;
  private state: ZookeeperConnectionState = 'connecting';
  private readonly deadline: number;
  private readonly connectionTimeout: number;
  private readonly listeners = new Set<(state: ZookeeperConnectionState) => void>();
  private waiters: (() => void)[] = [];
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private readonly acls: typeof zookeeper.ACL.OPEN_ACL_UNSAFE;

  constructor(private readonly options: ZookeeperClientOptions) {
    this.connectionTimeout = options.connectionTimeout ?? 30_000;
    this.deadline = Date.now() + this.connectionTimeout;
    this.client = zookeeper.createClient(options.connectString, {
      sessionTimeout: options.sessionTimeout ?? 60_000,
      spinDelay: 200,
      retries: 0,
      ...(options.session === undefined ? {} : { sessionId: options.session.id, sessionPassword: options.session.password }),
    });
    this.acls = options.auth === undefined ? zookeeper.ACL.OPEN_ACL_UNSAFE : zookeeper.ACL.CREATOR_ALL_ACL;
    if (options.auth !== undefined) this.client.addAuthInfo('digest', Buffer.from(options.auth));
    this.client.on('state', (state: { code: number }) => this.onState(state.code));
    this.client.connect();
    this.startWatchdog(options.sessionTimeout ?? 60_000);
  }

  /** The servers this client talks to. */
  get connectString(): string {
    return this.options.connectString;
  }

  /** Whether the client is connected now. */
  get connected(): boolean {
    return this.state === 'connected';
  }

  /** The connection state. */
  getState(): ZookeeperConnectionState {
    return this.state;
  }

  /** The current session id in hex, or `undefined` before the first connection. */
  getSessionId(): string | undefined {
    const id = this.client.getSessionId().toString('hex');
    return id === NO_SESSION ? undefined : id;
  }

  /** The current session's credentials (to resume it from another client, e.g. to force its expiry in tests). */
  getSession(): ZookeeperSession {
    return { id: this.client.getSessionId(), password: this.client.getSessionPassword() };
  }

  /** Calls `listener` on every state change; returns a function that removes it. */
  onStateChange(listener: (state: ZookeeperConnectionState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves once connected.
   * @throws `ZookeeperError` `NOT_CONNECTED` after `timeoutMs`, or at once when the client is closed or expired.
   */
  async waitConnected(timeoutMs: number = this.connectionTimeout): Promise<void> {
    if (this.state === 'connected') return;
    this.assertUsable();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(new ZookeeperError('NOT_CONNECTED', `Not connected to ZooKeeper at ${this.connectString} after ${timeoutMs} ms.`));
      }, timeoutMs);
      timer.unref?.();
      const done = (): void => {
        clearTimeout(timer);
        if (this.state === 'connected') resolve();
        else reject(new ZookeeperError('NOT_CONNECTED', `ZooKeeper client for ${this.connectString} is ${this.state}.`));
      };
      this.waiters.push(done);
    });
  }

  /**
   * Creates a node (persistent unless `ephemeral`), its parent must exist.
   * @throws `ZookeeperError` `NODE_EXISTS`, `NO_NODE` (no parent), or a connection failure.
   */
  async create(path: string, options: { readonly data?: Buffer | string; readonly ephemeral?: boolean } = {}): Promise<void> {
    const data = options.data === undefined ? null : Buffer.from(options.data);
    const mode = options.ephemeral === true ? zookeeper.CreateMode.EPHEMERAL : zookeeper.CreateMode.PERSISTENT;
    await this.call<string>(`create ${path}`, (cb) => this.client.create(path, data, this.acls, mode, cb));
  }

  /**
   * Creates `path` and every missing ancestor as persistent, empty nodes; existing ones are left alone. One round
   * trip when the parent exists.
   */
  async mkdirp(path: string): Promise<void> {
    if (path === '' || path === '/') return;
    try {
      await this.create(path);
      return;
    } catch (error) {
      if (isZkCode(error, 'NODE_EXISTS')) return;
      if (!isZkCode(error, 'NO_NODE')) throw error;
    }
    await this.mkdirp(path.slice(0, path.lastIndexOf('/')));
    try {
      await this.create(path);
    } catch (error) {
      if (!isZkCode(error, 'NODE_EXISTS')) throw error;
    }
  }

  /** A node's stat, or `undefined` when it does not exist; with a watcher, fires when it is created, changed or deleted. */
  async exists(path: string, watcher?: ZookeeperWatcher): Promise<ZookeeperNodeStat | undefined> {
    const stat = await this.call<ZkStat | null>(`exists ${path}`, (cb) => this.client.exists(path, watcher, cb));
    if (stat === null || stat === undefined) return undefined;
    const owner = stat.ephemeralOwner.toString('hex');
    return { ephemeralOwner: owner === NO_SESSION ? undefined : owner, version: stat.version, numChildren: stat.numChildren };
  }

  /**
   * A node's children (names only); with a watcher, fires once when a child is added or removed or the node is deleted.
   * @throws `ZookeeperError` `NO_NODE` when the node does not exist.
   */
  async getChildren(path: string, watcher?: ZookeeperWatcher): Promise<string[]> {
    return this.call<string[]>(`getChildren ${path}`, (cb) => this.client.getChildren(path, watcher, cb));
  }

  /**
   * A node's data, or `undefined` when the node does not exist. With a watcher, it fires once when the node's
   * data changes or it is deleted — or, when it does not exist yet, when it is created.
   */
  async getData(path: string, watcher?: ZookeeperWatcher): Promise<Buffer | undefined> {
    for (;;) {
      try {
        const data = await this.call<Buffer | null>(`getData ${path}`, (cb) => this.client.getData(path, watcher, cb));
        return data ?? Buffer.alloc(0);
      } catch (error) {
        if (!isZkCode(error, 'NO_NODE')) throw error;
      }
      // Not there: watch for its creation. If it appeared meanwhile, read it (and arm the data watch) after all.
      if ((await this.exists(path, watcher)) === undefined) return undefined;
    }
  }

  /** Sets a node's data (any version). @throws `ZookeeperError` `NO_NODE`. */
  async setData(path: string, data: Buffer | string): Promise<void> {
    await this.call<ZkStat>(`setData ${path}`, (cb) => this.client.setData(path, Buffer.from(data), -1, cb));
  }

  /** Writes a persistent node's data, creating the node and its ancestors when missing. */
  async writeData(path: string, data: Buffer | string): Promise<void> {
    const parent = path.slice(0, path.lastIndexOf('/'));
    if (parent !== '') await this.mkdirp(parent);
    try {
      await this.create(path, { data });
    } catch (error) {
      if (!isZkCode(error, 'NODE_EXISTS')) throw error;
      await this.setData(path, data);
    }
  }

  /** Deletes a node (any version); returns false when it did not exist. @throws `ZookeeperError` `NOT_EMPTY`. */
  async delete(path: string): Promise<boolean> {
    try {
      await this.call<void>(`delete ${path}`, (cb) => this.client.remove(path, -1, (error) => cb(error)));
      return true;
    } catch (error) {
      if (isZkCode(error, 'NO_NODE')) return false;
      throw error;
    }
  }

  /** Deletes a node and everything below it (children first); returns false when it did not exist. */
  async deleteRecursive(path: string): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      let children: string[];
      try {
        children = await this.getChildren(path);
      } catch (error) {
        if (isZkCode(error, 'NO_NODE')) return false;
        throw error;
      }
      const prefix = path === '/' ? '' : path;
      for (const child of children) await this.deleteRecursive(`${prefix}/${child}`);
      if (path === '/') return true;
      try {
        return await this.delete(path);
      } catch (error) {
        // A child was added meanwhile: delete again, a bounded number of times.
        if (!isZkCode(error, 'NOT_EMPTY') || attempt >= 5) throw error;
      }
    }
  }

  /** Closes the session (its ephemeral nodes go at once) and stops reconnecting. Idempotent. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const wasConnected = this.state === 'connected';
    this.setState('closed');
    await new Promise<void>((resolve) => {
      if (!wasConnected) {
        this.client.close();
        resolve();
        return;
      }
      // Wait for the server to confirm (the socket closes), but never hang on a dead connection.
      const timer = setTimeout(resolve, 2000);
      timer.unref?.();
      this.client.once('disconnected', () => {
        clearTimeout(timer);
        resolve();
      });
      this.client.close();
    });
  }

  private onState(code: number): void {
    if (this.state === 'closed' || this.state === 'expired') return;
    const { State } = zookeeper;
    if (code === State.SYNC_CONNECTED.code || code === State.CONNECTED_READ_ONLY.code) this.setState('connected');
    else if (code === State.DISCONNECTED.code) this.setState(this.state === 'connecting' ? 'connecting' : 'disconnected');
    else if (code === State.EXPIRED.code) this.setState('expired');
    else if (code === State.AUTH_FAILED.code) this.setState('auth-failed');
  }

  private setState(state: ZookeeperConnectionState): void {
    if (state === this.state) return;
    this.state = state;
    if (state === 'disconnected') this.startWatchdog(this.client.getSessionTimeout());
    else this.stopWatchdog();
    if (state !== 'connecting' && state !== 'disconnected') {
      const waiters = this.waiters;
      this.waiters = [];
      for (const waiter of waiters) waiter();
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(state);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  /**
   * node-zookeeper-client stops timing a connection attempt once TCP connects; a server that accepts but never
   * answers the handshake (it happens while ZooKeeper restarts) would leave the client waiting forever. While not
   * connected, a socket that stays connected without a handshake answer for a whole period is dropped, so the
   * library tries again.
   */
  private startWatchdog(sessionTimeout: number): void {
    if (this.watchdog !== undefined) return;
    let suspect: unknown;
    const period = Math.max(250, Math.min(1000, Math.floor(sessionTimeout / 6)));
    this.watchdog = setInterval(() => {
      const socket = this.client.connectionManager?.socket;
      const waiting = socket !== undefined && !socket.connecting && !socket.destroyed;
      if (waiting && suspect === socket) socket.destroy();
      suspect = waiting ? socket : undefined;
    }, period);
    this.watchdog.unref?.();
  }

  private stopWatchdog(): void {
    if (this.watchdog === undefined) return;
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }

  private assertUsable(): void {
    if (this.state === 'closed' || this.state === 'expired' || this.state === 'auth-failed') {
      throw new ZookeeperError(
        this.state === 'expired' ? 'SESSION_EXPIRED' : this.state === 'auth-failed' ? 'AUTH_FAILED' : 'NOT_CONNECTED',
        `ZooKeeper client for ${this.connectString} is ${this.state}.`,
      );
    }
  }

  /** Waits for the first connection (within the connection timeout), or fails at once while disconnected. */
  private async ready(what: string): Promise<void> {
    if (this.state === 'connected') return;
    this.assertUsable();
    const remaining = this.deadline - Date.now();
    if (this.state === 'connecting' && remaining > 0) {
      await this.waitConnected(remaining);
      return;
    }
    throw new ZookeeperError('NOT_CONNECTED', `Cannot ${what}: not connected to ZooKeeper at ${this.connectString} (${this.state}).`);
  }

  private async call<T>(what: string, start: (callback: (error: ZkException | null, result: T) => void) => void): Promise<T> {
    await this.ready(what);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new ZookeeperError('OPERATION_TIMEOUT', `ZooKeeper ${what} at ${this.connectString}: no answer within ${this.connectionTimeout} ms.`)),
        this.connectionTimeout,
      );
      timer.unref?.();
      try {
        start((error, result) => {
          clearTimeout(timer);
          if (error) reject(new ZookeeperError(error.getName(), `ZooKeeper ${what} at ${this.connectString} failed: ${error.getName()}.`, error));
          else resolve(result);
        });
      } catch (error) {
        // the library asserts on bad arguments (e.g. an invalid path) synchronously
        clearTimeout(timer);
        reject(new ZookeeperError('BAD_ARGUMENTS', `ZooKeeper ${what}: ${(error as Error).message}`, error));
      }
    });
  }
}

/** Whether `error` is a {@link ZookeeperError} with the given ZooKeeper code. */
export function isZkCode(error: unknown, code: string): boolean {
  return error instanceof ZookeeperError && error.zkCode === code;
}
