// The parts of node-zookeeper-client 1.1.3 (a CommonJS module without type declarations) that this package uses.
// Internal: no public declaration of this package refers to these types.
declare module 'node-zookeeper-client' {
  import type { EventEmitter } from 'node:events';
  import type { Socket } from 'node:net';

  export interface ZkState {
    readonly name: string;
    readonly code: number;
  }

  export interface ZkEvent {
    readonly type: number;
    readonly name: string;
    readonly path: string;
  }

  export interface ZkStat {
    readonly ephemeralOwner: Buffer;
    readonly version: number;
    readonly dataLength: number;
    readonly numChildren: number;
  }

  export interface ZkException extends Error {
    readonly code: number;
    getCode(): number;
    getName(): string;
  }

  export class ACL {
    constructor(permission: number, id: Id);
  }

  export class Id {
    constructor(scheme: string, id: string);
  }

  export type Watcher = (event: ZkEvent) => void;

  export interface ClientOptions {
    sessionTimeout?: number;
    spinDelay?: number;
    retries?: number;
    sessionId?: Buffer;
    sessionPassword?: Buffer;
  }

  export interface Client extends EventEmitter {
    /** Internal: the connection manager (its current socket is used by a handshake watchdog). */
    readonly connectionManager?: { readonly socket?: Socket };
    connect(): void;
    close(): void;
    getState(): ZkState;
    getSessionId(): Buffer;
    getSessionPassword(): Buffer;
    getSessionTimeout(): number;
    addAuthInfo(scheme: string, auth: Buffer): void;
    create(path: string, data: Buffer | null, acls: ACL[], mode: number, callback: (error: ZkException | null, path: string) => void): void;
    remove(path: string, version: number, callback: (error: ZkException | null) => void): void;
    exists(path: string, watcher: Watcher | undefined, callback: (error: ZkException | null, stat: ZkStat | null) => void): void;
    getChildren(path: string, watcher: Watcher | undefined, callback: (error: ZkException | null, children: string[], stat: ZkStat) => void): void;
    getData(path: string, watcher: Watcher | undefined, callback: (error: ZkException | null, data: Buffer | null, stat: ZkStat) => void): void;
    setData(path: string, data: Buffer | null, version: number, callback: (error: ZkException | null, stat: ZkStat) => void): void;
    getACL(path: string, callback: (error: ZkException | null, acls: ACL[], stat: ZkStat) => void): void;
  }

  const zookeeper: {
    createClient(connectionString: string, options?: ClientOptions): Client;
    ACL: { OPEN_ACL_UNSAFE: ACL[]; CREATOR_ALL_ACL: ACL[] };
    CreateMode: { PERSISTENT: number; EPHEMERAL: number; PERSISTENT_SEQUENTIAL: number; EPHEMERAL_SEQUENTIAL: number };
    State: {
      DISCONNECTED: ZkState;
      SYNC_CONNECTED: ZkState;
      AUTH_FAILED: ZkState;
      CONNECTED_READ_ONLY: ZkState;
      SASL_AUTHENTICATED: ZkState;
      EXPIRED: ZkState;
    };
    Event: { NODE_CREATED: number; NODE_DELETED: number; NODE_DATA_CHANGED: number; NODE_CHILDREN_CHANGED: number };
    Exception: {
      NO_NODE: number;
      NODE_EXISTS: number;
      NOT_EMPTY: number;
      CONNECTION_LOSS: number;
      SESSION_EXPIRED: number;
      NO_AUTH: number;
    };
  };
  export default zookeeper;
}
