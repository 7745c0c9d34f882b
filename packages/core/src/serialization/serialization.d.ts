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
export declare abstract class Serialization {
    /** The content-type suffix this codec is known by (`application/grpc+<name>`). */
    abstract readonly contentSubtype: string;
    /** Encodes a value. */
    abstract serialize(value: unknown): Uint8Array;
    /** Decodes bytes into plain data. */
    abstract deserialize(bytes: Uint8Array): unknown;
    /** An independent copy of `value` as it would arrive after a trip over the wire. */
    copy(value: unknown): unknown;
}
//# sourceMappingURL=serialization.d.ts.map