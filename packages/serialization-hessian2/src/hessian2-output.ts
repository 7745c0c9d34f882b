import { ObjectOutput, RpcError, RpcErrorCode, type TypeDescriptor } from '@weft/core';
import type { ScratchPool } from './encoder/byte-sink.js';
import { HessianEncoder } from './encoder/hessian-encoder.js';
import { writeThrowable } from './encoder/throwable-writer.js';
import type { WriterCompiler } from './encoder/writer-compiler.js';

/**
 * One Hessian 2 body being written (Dubbo's `Hessian2ObjectOutput`): values share one reference, class-definition and
 * type table; made by `Hessian2Serialization.createOutput()`.
 *
 * @example
 * ```ts
 * const out = hessian2.createOutput();
 * out.writeString('2.0.2');
 * out.writeObject(user, User);
 * const body = out.finish();
 * ```
 */
export class Hessian2Output extends ObjectOutput {
  private encoder: HessianEncoder | undefined;

  /** @internal Made by `Hessian2Serialization`. */
  constructor(
    private readonly compiler: WriterCompiler,
    private readonly pool?: ScratchPool,
  ) {
    super();
    // Borrow the serialization's spare buffer (a nested output, while it is lent, gets a fresh one).
    const scratch = pool?.scratch;
    if (pool !== undefined) pool.scratch = undefined;
    this.encoder = new HessianEncoder(compiler, scratch);
  }

  private get live(): HessianEncoder {
    if (this.encoder === undefined) throw new RpcError(RpcErrorCode.SERIALIZATION, 'hessian2: the output was already finished.');
    return this.encoder;
  }

  /** Writes a Java `int` (`writeInt`). */
  writeInt(value: number): void {
    if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
      throw new RpcError(RpcErrorCode.SERIALIZATION, `hessian2: writeInt(${value}): not a 32-bit integer.`);
    }
    this.live.int(value);
  }

  /** Writes a string or `N`. */
  writeString(value: string | null): void {
    if (value === null) this.live.byte(0x4e);
    else this.live.string(value);
  }

  /** Writes a value as `type`, or by its runtime shape. */
  writeObject(value: unknown, type?: TypeDescriptor): void {
    const encoder = this.live;
    if (type === undefined) encoder.value(value);
    else this.compiler.writer(type)(encoder, value);
  }

  /** Writes an `Error` as a Java `Throwable`. */
  writeThrowable(error: Error): void {
    writeThrowable(this.live, error, this.compiler);
  }

  /** The bytes written. */
  finish(): Uint8Array {
    const encoder = this.live;
    const bytes = encoder.bytes();
    this.encoder = undefined;
    if (this.pool !== undefined) this.pool.scratch = encoder.release();
    return bytes;
  }
}
