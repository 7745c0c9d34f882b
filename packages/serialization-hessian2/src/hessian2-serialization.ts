import { ObjectSerialization, type TypeDescriptor } from '@weft/core';
import type { ScratchPool } from './encoder/byte-sink.js';
import { ReaderCompiler } from './decoder/reader-compiler.js';
import { StringTable } from './decoder/string-table.js';
import { WriterCompiler } from './encoder/writer-compiler.js';
import { Hessian2Input } from './hessian2-input.js';
import { Hessian2Output } from './hessian2-output.js';
import { javaTypeName, parameterDescriptor } from './java/java-names.js';

/**
 * Hessian 2.0 as Dubbo's hessian-lite 4.0.3 reads and writes it: the `hessian2` extension of
 * `weft.rpc.Serialization`, an `ObjectSerialization` (the body codec of `dubbo://` and of the Triple wrapper).
 *
 * @remarks
 * Extension `hessian2` (framework scope, one instance), `dubboSerializationId` 2, content subtype `hessian2`. Values
 * are written as their declared types (`java.*` declarations, a class's `static javaClass` and `static fields`) or,
 * undeclared, by their runtime shape; reads return plain data or, given a type, values realised to it. Declared
 * types are compiled once and cached here. `serialize`/`deserialize` write and read one untyped value. The mapping
 * rules and the differences from Dubbo are in the package README.
 *
 * @example
 * ```ts
 * const hessian2 = new Hessian2Serialization();
 * const out = hessian2.createOutput();
 * out.writeObject(5, java.long);
 * hessian2.createInput(out.finish()).readObject(); // 5
 * ```
 */
export class Hessian2Serialization extends ObjectSerialization {
  readonly contentSubtype = 'hessian2';
  readonly dubboSerializationId = 2;
  private readonly writers = new WriterCompiler();
  private readonly readers = new ReaderCompiler();
  /** The spare output buffer, reused by the next body (its bytes are copied out by `finish()`). */
  private readonly pool: ScratchPool = { scratch: undefined };
  /** Recent short strings: the same bytes decode to the same string (see `StringTable`). */
  private readonly strings = new StringTable();

  /** Starts a body. */
  createOutput(): Hessian2Output {
    return new Hessian2Output(this.writers, this.pool);
  }

  /** Reads a body. */
  createInput(bytes: Uint8Array): Hessian2Input {
    return new Hessian2Input(bytes, this.readers, this.strings);
  }

  /** The `dubbo://` parameter descriptor of declared argument types: `Ljava/lang/String;IJ`. */
  parameterDescriptor(types: readonly TypeDescriptor[]): string {
    return parameterDescriptor(types);
  }

  /** `Class.getName()` of each declared type: `java.lang.String`, `int`, `[I`. */
  javaTypeNames(types: readonly TypeDescriptor[]): string[] {
    return types.map(javaTypeName);
  }

  /** One untyped value as a body. */
  serialize(value: unknown): Uint8Array {
    const out = this.createOutput();
    out.writeObject(value);
    return out.finish();
  }

  /** The first value of a body, as plain data. */
  deserialize(bytes: Uint8Array): unknown {
    return this.createInput(bytes).readObject();
  }
}
