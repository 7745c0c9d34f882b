import { RpcError, RpcErrorCode } from '@weft/core/spi';

import { GrpcStatus } from '../codec/grpc-status.js';
import { HealthCheckResponse_ServingStatus as ServingStatus } from './gen/grpc/health/v1/health_pb.js';

export { ServingStatus };

/** Statuses a slow Watch reader may have queued before the oldest are dropped (the latest always stays). */
const MAX_QUEUED = 16;

/**
 * The serving status of every service of one Triple server, as `grpc.health.v1.Health` reports it, and the Watch
 * streams that follow it.
 *
 * @remarks
 * One per server. `""` (the whole server) is SERVING from the start; the server sets a service's key and interface
 * name SERVING on export and NOT_SERVING on unexport. {@link HealthStatus.shutdown} turns everything NOT_SERVING,
 * ignores later changes (gRPC's "terminal state"), and ends every watch after it has delivered that status.
 *
 * @example
 * ```ts
 * const health = new HealthStatus('127.0.0.1:50051');
 * health.set('org.acme.Greeter', ServingStatus.SERVING);
 * health.get('org.acme.Greeter'); // ServingStatus.SERVING
 * ```
 */
export class HealthStatus {
  private readonly statuses = new Map<string, ServingStatus>([['', ServingStatus.SERVING]]);
  private readonly watches = new Map<string, Set<StatusWatch>>();
  private terminal = false;

  constructor(private readonly address: string) {}

  /** The status of `service`, or `undefined` for a service the server does not know. */
  get(service: string): ServingStatus | undefined {
    return this.statuses.get(service);
  }

  /** Every known service and its status. */
  entries(): IterableIterator<[string, ServingStatus]> {
    return this.statuses.entries();
  }

  /** Sets a service's status; its watches see the change (nothing changes once shut down). */
  set(service: string, status: ServingStatus): void {
    if (this.terminal || this.statuses.get(service) === status) return;
    this.statuses.set(service, status);
    const watches = this.watches.get(service);
    if (watches !== undefined) for (const watch of watches) watch.push(status);
  }

  /**
   * Follows a service: the current status at once (SERVICE_UNKNOWN for an unknown one), then each change, until
   * `signal` aborts (the consumer cancelled) or the server shuts down (then the stream fails UNAVAILABLE).
   */
  watch(service: string, signal: AbortSignal | undefined): AsyncIterableIterator<{ status: ServingStatus }> {
    const watch = new StatusWatch(this.get(service) ?? ServingStatus.SERVICE_UNKNOWN, () => {
      const set = this.watches.get(service);
      if (set === undefined) return;
      set.delete(watch);
      if (set.size === 0) this.watches.delete(service);
    });
    if (this.terminal) {
      watch.fail(this.shutdownError());
      return watch;
    }
    let set = this.watches.get(service);
    if (set === undefined) this.watches.set(service, (set = new Set()));
    set.add(watch);
    if (signal !== undefined) {
      if (signal.aborted) watch.finish();
      else signal.addEventListener('abort', () => watch.finish(), { once: true });
    }
    return watch;
  }

  /** Graceful shutdown: every service NOT_SERVING (watches see it), then every watch ends. Idempotent. */
  shutdown(): void {
    if (this.terminal) return;
    for (const service of [...this.statuses.keys()]) this.set(service, ServingStatus.NOT_SERVING);
    this.terminal = true;
    const error = this.shutdownError();
    for (const set of [...this.watches.values()]) for (const watch of [...set]) watch.fail(error);
    this.watches.clear();
  }

  private shutdownError(): RpcError {
    return new RpcError(RpcErrorCode.NETWORK, `The tri server on ${this.address} is shutting down.`, { grpcStatus: GrpcStatus.UNAVAILABLE });
  }
}

/** One Watch stream's queue of statuses to send (an async iterator the stream call pulls from). */
class StatusWatch implements AsyncIterableIterator<{ status: ServingStatus }> {
  private readonly queue: ServingStatus[];
  private waiting: ((step: IteratorResult<{ status: ServingStatus }>) => void) | undefined;
  private failWaiting: ((error: unknown) => void) | undefined;
  private ended = false;
  private error: unknown;

  constructor(
    first: ServingStatus,
    private readonly unsubscribe: () => void,
  ) {
    this.queue = [first];
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  push(status: ServingStatus): void {
    if (this.ended) return;
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = this.failWaiting = undefined;
      waiting({ done: false, value: { status } });
      return;
    }
    if (this.queue.length >= MAX_QUEUED) this.queue.shift();
    this.queue.push(status);
  }

  /** Ends the stream after the queued statuses, with `error`. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.error = error;
    this.close();
  }

  /** Ends the stream now (cancelled). */
  finish(): void {
    this.queue.length = 0;
    this.close();
  }

  next(): Promise<IteratorResult<{ status: ServingStatus }>> {
    const status = this.queue.shift();
    if (status !== undefined) return Promise.resolve({ done: false, value: { status } });
    if (this.ended) return this.error === undefined ? Promise.resolve({ done: true, value: undefined }) : Promise.reject(this.error);
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
    });
  }

  return(): Promise<IteratorResult<{ status: ServingStatus }>> {
    this.finish();
    return Promise.resolve({ done: true, value: undefined });
  }

  private close(): void {
    if (this.ended) return;
    this.ended = true;
    this.unsubscribe();
    const { waiting, failWaiting } = this;
    this.waiting = this.failWaiting = undefined;
    if (waiting === undefined) return;
    if (this.error === undefined) waiting({ done: true, value: undefined });
    else failWaiting?.(this.error);
  }
}
