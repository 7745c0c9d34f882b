import { asDeclaredError, RpcError, RpcErrorCode, type MethodDescriptor, type ObjectSerialization, type TypeDescriptor } from '@weft/core/spi';

import type { TripleCodec } from './triple-codec.js';
import { decodeRequestWrapper, decodeResponseWrapper, encodeRequestWrapper, encodeResponseWrapper } from './wrapper-messages.js';

/** What Dubbo's Java client calls Hessian2 (hessian-lite) on the wire; `hessian2` is accepted too (Go sends it). */
const WIRE_NAME = 'hessian4';
const ACCEPTED_NAMES: ReadonlySet<string> = new Set(['hessian4', 'hessian2']);
/** Server-streaming methods list the Java `StreamObserver` parameter in `argTypes` (§A.10). */
const STREAM_OBSERVER = 'org.apache.dubbo.common.stream.StreamObserver';

/**
 * Dubbo 3's wire for interface (non-IDL) services over Triple (§A.10): each message is a protobuf
 * `TripleRequestWrapper`/`TripleResponseWrapper` holding one Hessian2 stream per argument (or the result), with the
 * Java class names of the arguments and of the return type, sent as `application/grpc+proto`.
 *
 * @remarks
 * Chosen by `tri` for an interface service whose URL says `serialization=hessian2` (an `ObjectSerialization`, so
 * each value is written as its declared Java type). Requests carry `serializeType=hessian4` (what Java sends) and
 * exact `argTypes`; `hessian4` and `hessian2` are accepted both ways (other names are refused, naming them). Business
 * errors travel as a Hessian2 `Throwable` in the response's `data` with `tri-exception-code` (the server side of
 * the protocol sets the header), and are rebuilt as the declared error class. Plain-HTTP calls stay JSON: they go
 * through `plain`.
 * @example
 * ```ts
 * const codec = new WrapperCodec(serializations.getExtension('hessian2') as ObjectSerialization, jsonCodec);
 * const bytes = codec.encodeArguments(['world'], Greeter.getMethod('sayHello')); // 0a 08 hessian4 12 06 05 world 1a 10 java.lang.String
 * ```
 */
export class WrapperCodec implements TripleCodec {
  readonly name: string;
  readonly contentType = 'application/grpc+proto';

  constructor(
    private readonly serialization: ObjectSerialization,
    private readonly plain: TripleCodec,
  ) {
    this.name = serialization.contentSubtype;
  }

  accepts(subtype: string): boolean {
    return subtype === 'proto' || subtype === '';
  }

  encodeArguments(args: readonly unknown[], method: MethodDescriptor | undefined): Uint8Array {
    const types = method?.args;
    const blobs = args.map((arg, i) => this.write(arg, types?.[i]));
    return encodeRequestWrapper({ serializeType: WIRE_NAME, args: blobs, argTypes: this.argTypes(args.length, method) });
  }

  decodeArguments(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown[] {
    const wrapper = decodeRequestWrapper(bytes);
    this.checkName(wrapper.serializeType, 'request');
    const types = method?.args;
    if (types !== undefined && method?.stream === undefined && wrapper.args.length !== types.length) {
      throw new RpcError(
        RpcErrorCode.SERIALIZATION,
        `${method?.name ?? 'The method'}() takes ${types.length} argument(s) but the request wrapper holds ${wrapper.args.length}.`,
      );
    }
    return wrapper.args.map((blob, i) => this.serialization.createInput(blob).readObject(types?.[i]));
  }

  bindArguments(body: unknown, method: MethodDescriptor | undefined): unknown[] {
    return this.plain.bindArguments(body, method);
  }

  encodeResult(value: unknown, method: MethodDescriptor | undefined): Uint8Array {
    return encodeResponseWrapper({ serializeType: WIRE_NAME, data: this.write(value, method?.returns), type: this.returnType(method, value) });
  }

  decodeResult(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown {
    const wrapper = decodeResponseWrapper(bytes);
    this.checkName(wrapper.serializeType, 'response');
    return this.serialization.createInput(wrapper.data).readObject(method?.returns);
  }

  encodeException(error: unknown, method: MethodDescriptor | undefined): Uint8Array {
    const out = this.serialization.createOutput();
    out.writeThrowable(error instanceof Error ? error : new Error(String(error)));
    return encodeResponseWrapper({ serializeType: WIRE_NAME, data: out.finish(), type: this.returnType(method, undefined) });
  }

  decodeException(bytes: Uint8Array, method: MethodDescriptor | undefined): Error {
    const wrapper = decodeResponseWrapper(bytes);
    this.checkName(wrapper.serializeType, 'response');
    return asDeclaredError(this.serialization.createInput(wrapper.data).readThrowable(), method?.throws);
  }

  /** One value as its own Hessian2 stream (fresh class and reference tables, as Dubbo writes each argument). */
  private write(value: unknown, type: TypeDescriptor | undefined): Uint8Array {
    const out = this.serialization.createOutput();
    out.writeObject(value, type);
    return out.finish();
  }

  /** `argTypes`: the declared parameters' Java names; a server stream adds `StreamObserver` (§A.10). */
  private argTypes(count: number, method: MethodDescriptor | undefined): string[] {
    const types = method?.args;
    if (types === undefined) return Array.from({ length: count }, () => 'java.lang.Object');
    const names = this.serialization.javaTypeNames(types);
    return method?.stream === 'server' ? [...names, STREAM_OBSERVER] : names;
  }

  /** `type` of a response: the declared return class, `void` for a method that declares none and returned nothing. */
  private returnType(method: MethodDescriptor | undefined, value: unknown): string {
    if (method?.returns !== undefined) return this.serialization.javaTypeNames([method.returns])[0] ?? 'java.lang.Object';
    return value === undefined || value === null ? 'void' : 'java.lang.Object';
  }

  private checkName(name: string, what: string): void {
    if (ACCEPTED_NAMES.has(name)) return;
    throw new RpcError(
      RpcErrorCode.SERIALIZATION,
      `Unexpected serialization type "${name}" in the Triple ${what} wrapper: this service speaks Hessian2 (hessian4 or hessian2).`,
    );
  }
}
