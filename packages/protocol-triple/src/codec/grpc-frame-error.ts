import type { GrpcStatus } from './grpc-status.js';

/**
 * A malformed or refused gRPC message, with the `grpc-status` to answer it with.
 *
 * @example
 * ```ts
 * try { reader.push(chunk); } catch (error) { if (error instanceof FrameError) fail(error.status, error.message); }
 * ```
 */
export class FrameError extends Error {
  constructor(
    /** `INTERNAL` for malformed framing, `RESOURCE_EXHAUSTED` for a message over the size limit. */
    readonly status: GrpcStatus,
    message: string,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}
