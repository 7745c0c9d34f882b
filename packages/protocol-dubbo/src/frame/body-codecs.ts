import { ExtensionError, ExtensionErrorCode, ObjectSerialization, type ExtensionLoader, type Serialization, type URL } from '@weft/core/spi';

/**
 * The body codecs one `dubbo` protocol instance uses: the `ObjectSerialization` a URL names, the one a frame header's
 * serialization id names, and each codec's serialized `null` (the heartbeat body).
 *
 * @remarks Codecs are found through the `weft.rpc.Serialization` loader, by name or by `dubboSerializationId`, never
 * imported; lookups by id are cached (including misses: an unknown id costs one scan of the installed codecs, once).
 *
 * @example
 * ```ts
 * const codecs = new BodyCodecs(loader);
 * const hessian = codecs.forUrl(url); // serialization=hessian2 (the default)
 * codecs.byId(2) === hessian; // true
 * ```
 */
export class BodyCodecs {
  private readonly ids = new Map<number, ObjectSerialization | null>();
  private readonly nulls = new Map<ObjectSerialization, Buffer>();

  constructor(
    private readonly loader: ExtensionLoader<Serialization>,
    private readonly fallback: string,
  ) {}

  /**
   * The codec a URL's `serialization` key names (default `hessian2`).
   * @throws `ERR_SPI_INVALID_PARAMETER` when it is not installed or is not an `ObjectSerialization`.
   */
  forUrl(url: URL): ObjectSerialization {
    const name = url.getParameter('serialization', this.fallback);
    const where = url.getServiceKey() ?? url.path;
    if (!this.loader.hasExtension(name)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where} over dubbo needs the "${name}" serialization, but no weft.rpc.Serialization extension "${name}" is installed ` +
          `(available: ${this.loader.getSupportedExtensions().join(', ')}). ` +
          (name === 'hessian2' ? 'Install it: npm install @weft/serialization-hessian2.' : 'Install the package that provides it.'),
      );
    }
    const codec = this.loader.getExtension(name);
    if (!(codec instanceof ObjectSerialization)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: serialization=${name} cannot encode dubbo:// bodies (it is not an ObjectSerialization, which writes typed value sequences); ` +
          'use serialization=hessian2 (the default).',
      );
    }
    this.ids.set(codec.dubboSerializationId, codec);
    return codec;
  }

  /** The codec of a frame header's serialization id, if one is installed. */
  byId(id: number): ObjectSerialization | undefined {
    const known = this.ids.get(id);
    if (known !== undefined) return known ?? undefined;
    let found: ObjectSerialization | null = null;
    for (const name of this.loader.getSupportedExtensions()) {
      let codec: Serialization;
      try {
        codec = this.loader.getExtension(name);
      } catch {
        continue;
      }
      if (codec instanceof ObjectSerialization && codec.dubboSerializationId === id) {
        found = codec;
        break;
      }
    }
    this.ids.set(id, found);
    return found ?? undefined;
  }

  /** The installed body codecs' names and ids, for messages (`hessian2=2`). */
  describe(): string {
    const known = [...this.ids.values()].filter((c): c is ObjectSerialization => c !== null);
    return known.length === 0 ? 'none' : known.map((c) => `${c.contentSubtype}=${c.dubboSerializationId}`).join(', ');
  }

  /** The codec's serialized `null`: the body of heartbeats (hessian2: the one byte `4e`). */
  nullBytes(codec: ObjectSerialization): Buffer {
    let bytes = this.nulls.get(codec);
    if (bytes === undefined) {
      const out = codec.createOutput();
      out.writeObject(null);
      bytes = Buffer.from(out.finish());
      this.nulls.set(codec, bytes);
    }
    return bytes;
  }

  /** Whether an event body is a heartbeat: exactly the codec's serialized `null`. */
  isHeartbeat(codec: ObjectSerialization, body: Buffer): boolean {
    return body.equals(this.nullBytes(codec));
  }
}
