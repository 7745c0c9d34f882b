import { SPI } from '../extension/decorators.js';
import { Realizer } from '../service/realizer.js';
import type { MethodDescriptor } from '../service/service-definition.js';

/**
 * Copies one method's arguments and results across an in-process boundary as a trip over the wire would change
 * them, realised against the method's declared types; made by {@link Serialization.copier}.
 *
 * @example
 * ```ts
 * const copier = json.copier(Greeter.getMethod('greet'));
 * copier.args([{ at: new Date(0) }]); // a fresh Greeting whose `at` is a fresh Date
 * ```
 */
export interface MethodCopier {
  /** A copy of the arguments, each realised against its parameter type (the array given is not changed). */
  args(values: readonly unknown[]): unknown[];
  /** A copy of a return value (or a streamed message) realised against the return type; `undefined` stays so. */
  result(value: unknown): unknown;
}

/**
 * How values are encoded on the wire: the `weft.rpc.Serialization` extension point.
 *
 * @remarks
 * Extension point `weft.rpc.Serialization`, default `json`, framework scope (codecs are stateless). Protocols
 * pick the codec named by the URL key `serialization`; `injvm` uses it to copy arguments and results so
 * in-process calls behave like remote ones. `deserialize` returns plain data; callers realise it against the
 * declared types (`realize`). A codec never instantiates classes named by the data.
 *
 * @example
 * ```ts
 * const json = app.getExtensionLoader(Serialization).getExtension('json');
 * json.deserialize(json.serialize({ a: 1 })); // { a: 1 }
 * ```
 */
@SPI({ id: 'weft.rpc.Serialization', default: 'json', scope: 'framework' })
export abstract class Serialization {
  /** The content-type suffix this codec is known by (`application/grpc+<name>`). */
  abstract readonly contentSubtype: string;
  /** Encodes a value. */
  abstract serialize(value: unknown): Uint8Array;
  /** Decodes bytes into plain data. */
  abstract deserialize(bytes: Uint8Array): unknown;
  /** An independent copy of `value` as it would arrive after a trip over the wire. */
  copy(value: unknown): unknown {
    return this.deserialize(this.serialize(value));
  }

  private copiers: WeakMap<MethodDescriptor, MethodCopier> | undefined;
  private realizer: Realizer | undefined;

  /**
   * The copier of `method`'s values, compiled once per method: by default {@link Serialization.copy} then the
   * realisation against the declared types; a codec may fuse the two (the `json` codec does).
   *
   * @throws `ERR_SPI_INVALID_PARAMETER` when the method's declared types are malformed.
   */
  copier(method: MethodDescriptor): MethodCopier {
    let copier = (this.copiers ??= new WeakMap()).get(method);
    if (copier === undefined) {
      copier = this.compileCopier(method, (this.realizer ??= new Realizer()));
      this.copiers.set(method, copier);
    }
    return copier;
  }

  /** Builds the copier of `method` ({@link Serialization.copier} caches it); `realizer` compiles the declared types. */
  protected compileCopier(method: MethodDescriptor, realizer: Realizer): MethodCopier {
    const realize = realizer.method(method);
    return {
      args: (values) => realize.args(this.copy(values) as unknown[]),
      result: (value) => realize.result(value === undefined ? undefined : this.copy(value)),
    };
  }
}
