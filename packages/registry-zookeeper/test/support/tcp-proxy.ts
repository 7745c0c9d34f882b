// A TCP proxy on loopback that can cut the network between clients and a server: while "partitioned" it drops
// every connection (open ones and new ones), as a network partition would; healed, it forwards again.
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A loopback TCP proxy to 127.0.0.1:`targetPort`. */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private partitioned = false;
  private readonly server: Server;
  private listening: Promise<number>;

  private constructor(targetPort: number) {
    this.server = createServer((inbound) => this.forward(inbound, targetPort));
    this.listening = new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => {
        const address = this.server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : 0);
      });
    });
  }

  /** The proxy's own port on 127.0.0.1. */
  port = 0;

  /** Starts forwarding a free loopback port to `targetPort`. */
  static async start(targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetPort);
    proxy.port = await proxy.listening;
    return proxy;
  }

  /** Cuts the network: drops every open connection and refuses new ones until {@link TcpProxy.heal}. */
  partition(): void {
    this.partitioned = true;
    for (const socket of this.sockets) socket.destroy();
  }

  /** Forwards again. */
  heal(): void {
    this.partitioned = false;
  }

  /** Stops the proxy and drops its connections. */
  async close(): Promise<void> {
    this.partition();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(inbound: Socket, targetPort: number): void {
    if (this.partitioned) {
      inbound.destroy();
      return;
    }
    const outbound = connect({ host: '127.0.0.1', port: targetPort });
    for (const socket of [inbound, outbound]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  }
}
