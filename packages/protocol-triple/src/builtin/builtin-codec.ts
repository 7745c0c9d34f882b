import { create, fromBinary, toBinary, type DescMessage, type Message } from '@bufbuild/protobuf';
import { RpcError, RpcErrorCode, type MethodDescriptor } from '@weft/core/spi';

import type { TripleCodec } from '../codec/triple-codec.js';

function schemaOf(method: MethodDescriptor | undefined, side: 'input' | 'output'): DescMessage {
  const schema = method?.idl?.[side];
  if (schema === undefined) throw new RpcError(RpcErrorCode.SERIALIZATION, `tri built-in service: ${method?.name ?? 'the method'}() has no message schema.`);
  return schema as DescMessage;
}

function messageOf(schema: DescMessage, value: unknown): Message {
  if (value !== null && typeof value === 'object' && (value as { $typeName?: unknown }).$typeName === schema.typeName) return value as Message;
  return create(schema, (value ?? {}) as never);
}

/**
 * The codec of tri's built-in services (health, reflection): binary protobuf by the generated schemas their methods
 * carry, on `@bufbuild/protobuf` directly — so they work whether or not `@weft/serialization-protobuf` is installed.
 *
 * @remarks Accepts `application/grpc` and `application/grpc+proto`; the built-ins have no plain-HTTP or JSON form.
 * @example
 * ```ts
 * new BuiltinCodec().encodeResult({ status: 1 }, Health.getMethod('check'));
 * ```
 */
export class BuiltinCodec implements TripleCodec {
  readonly name = 'proto';
  readonly contentType = 'application/grpc+proto';

  accepts(subtype: string): boolean {
    return subtype === '' || subtype === 'proto';
  }

  encodeArguments(args: readonly unknown[], method: MethodDescriptor | undefined): Uint8Array {
    const schema = schemaOf(method, 'input');
    return toBinary(schema, messageOf(schema, args[0]));
  }

  decodeArguments(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown[] {
    const schema = schemaOf(method, 'input');
    try {
      return [fromBinary(schema, bytes)];
    } catch (error) {
      throw new RpcError(RpcErrorCode.SERIALIZATION, `Malformed ${schema.typeName}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  bindArguments(_body: unknown, method: MethodDescriptor | undefined): unknown[] {
    throw new RpcError(RpcErrorCode.SERIALIZATION, `${method?.name ?? 'The method'}() of a tri built-in service is answered over gRPC only.`);
  }

  encodeResult(value: unknown, method: MethodDescriptor | undefined): Uint8Array {
    const schema = schemaOf(method, 'output');
    return toBinary(schema, messageOf(schema, value));
  }

  decodeResult(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown {
    return fromBinary(schemaOf(method, 'output'), bytes);
  }

  encodeException(_error: unknown, method: MethodDescriptor | undefined): Uint8Array {
    return this.bindArguments(undefined, method) as never;
  }

  decodeException(_bytes: Uint8Array, method: MethodDescriptor | undefined): Error {
    return this.bindArguments(undefined, method) as never;
  }
}
