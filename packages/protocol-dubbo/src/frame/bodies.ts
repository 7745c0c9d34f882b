import type { AttachmentValue, ObjectSerialization, TypeDescriptor } from '@weft/core/spi';

import { ResponseFlag } from './status.js';

/** Attachment keys that name the service in a request (body fields 2–3 and the group): not passed on as attachments. */
export const ROUTING_ATTACHMENTS: ReadonlySet<string> = new Set(['path', 'interface', 'version', 'group', 'dubbo']);

/**
 * The fields of a request body before its arguments (§1.4).
 *
 * @example
 * ```ts
 * const head: RequestHead = { dubboVersion: '2.0.2', path: 'org.acme.Greeter', version: '0.0.0', method: 'sayHello', descriptor: 'Ljava/lang/String;' };
 * ```
 */
export interface RequestHead {
  readonly dubboVersion: string;
  readonly path: string;
  readonly version: string;
  readonly method: string;
  readonly descriptor: string;
}

/**
 * Writes a request body: the five head fields, each argument as its declared type, then the attachments map.
 *
 * @example
 * ```ts
 * const body = writeRequestBody(hessian, head, ['world'], [String], { path: 'org.acme.Greeter' });
 * ```
 */
export function writeRequestBody(
  serialization: ObjectSerialization,
  head: RequestHead,
  args: readonly unknown[],
  types: readonly TypeDescriptor[] | undefined,
  attachments: Record<string, AttachmentValue>,
): Uint8Array {
  const out = serialization.createOutput();
  out.writeString(head.dubboVersion);
  out.writeString(head.path);
  out.writeString(head.version);
  out.writeString(head.method);
  out.writeString(head.descriptor);
  for (let i = 0; i < args.length; i++) out.writeObject(args[i], types?.[i]);
  out.writeObject(attachments);
  return out.finish();
}

/**
 * Writes the body of an OK response carrying a value (flag 1/4, or 2/5 for `null`/`undefined`).
 *
 * @example
 * ```ts
 * writeValueBody(hessian, 'Hello world', String, { dubbo: '2.0.2' }); // 94 0b "Hello world" H … Z
 * ```
 */
export function writeValueBody(
  serialization: ObjectSerialization,
  value: unknown,
  type: TypeDescriptor | undefined,
  attachments: Record<string, AttachmentValue> | undefined,
): Uint8Array {
  const out = serialization.createOutput();
  const empty = value === null || value === undefined;
  if (attachments === undefined) {
    out.writeInt(empty ? ResponseFlag.NULL_VALUE : ResponseFlag.VALUE);
    if (!empty) out.writeObject(value, type);
  } else {
    out.writeInt(empty ? ResponseFlag.NULL_VALUE_WITH_ATTACHMENTS : ResponseFlag.VALUE_WITH_ATTACHMENTS);
    if (!empty) out.writeObject(value, type);
    out.writeObject(attachments);
  }
  return out.finish();
}

/**
 * Writes the body of an OK response carrying a business exception (flag 0/3) as a Java `Throwable`.
 *
 * @example
 * ```ts
 * writeExceptionBody(hessian, new Error('boom'), undefined); // 90 C "java.lang.RuntimeException" …
 * ```
 */
export function writeExceptionBody(
  serialization: ObjectSerialization,
  error: Error,
  attachments: Record<string, AttachmentValue> | undefined,
): Uint8Array {
  const out = serialization.createOutput();
  out.writeInt(attachments === undefined ? ResponseFlag.EXCEPTION : ResponseFlag.EXCEPTION_WITH_ATTACHMENTS);
  out.writeThrowable(error);
  if (attachments !== undefined) out.writeObject(attachments);
  return out.finish();
}

/**
 * Writes the body of a non-OK response: one string, the error message.
 *
 * @example
 * ```ts
 * writeStringBody(hessian, 'boom'); // 04 "boom"
 * ```
 */
export function writeStringBody(serialization: ObjectSerialization, text: string | null): Uint8Array {
  const out = serialization.createOutput();
  out.writeString(text);
  return out.finish();
}

/**
 * A response body as read by a consumer.
 *
 * @example
 * ```ts
 * const read = readResponseBody(hessian, body, String);
 * if (read.error !== undefined) return Result.ofException(read.error);
 * ```
 */
export interface ResponseBody {
  readonly value: unknown;
  readonly error: Error | undefined;
  readonly attachments: ReadonlyMap<string, AttachmentValue> | undefined;
}

/**
 * Reads an OK response body (any of the six flags).
 * @throws `Error` naming an unknown flag; the codec's `RpcError` for malformed bytes.
 *
 * @example
 * ```ts
 * readResponseBody(hessian, Buffer.from('920', 'hex'), String); // { value: null, … }
 * ```
 */
export function readResponseBody(serialization: ObjectSerialization, body: Uint8Array, type: TypeDescriptor | undefined, empty: unknown): ResponseBody {
  const input = serialization.createInput(body);
  const flag = input.readInt();
  let value: unknown = empty;
  let error: Error | undefined;
  switch (flag) {
    case ResponseFlag.VALUE:
    case ResponseFlag.VALUE_WITH_ATTACHMENTS:
      value = input.readObject(type);
      break;
    case ResponseFlag.EXCEPTION:
    case ResponseFlag.EXCEPTION_WITH_ATTACHMENTS:
      error = readError(input.readObject());
      break;
    case ResponseFlag.NULL_VALUE:
    case ResponseFlag.NULL_VALUE_WITH_ATTACHMENTS:
      break;
    default:
      throw new Error(`Unknown result flag, expect '0' '1' '2' '3' '4' '5', but received: ${flag}`);
  }
  const attachments = flag >= ResponseFlag.EXCEPTION_WITH_ATTACHMENTS && input.hasMore() ? readAttachments(input.readObject()) : undefined;
  return { value, error, attachments };
}

/** The symbol a Hessian2 reader (`@weft/serialization-hessian2`) tags decoded objects with: their Java class name. */
const JAVA_CLASS = Symbol.for('weft.hessian2.javaClass');

/**
 * An exception slot's value as an `Error`: a decoded Throwable; an object carrying a `detailMessage` (a Throwable
 * whose class the reader did not recognise as one), named by its Java class; or — as `apache-dubbo-service` sends —
 * a plain string.
 */
function readError(value: unknown): Error {
  if (value instanceof Error) return value;
  if (typeof value === 'string') return new Error(value);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Map)) {
    const fields = value as Record<string | symbol, unknown>;
    const detail = fields['detailMessage'];
    if (typeof detail === 'string' || detail === null) {
      const error = new Error(detail ?? '');
      const javaClass = fields[JAVA_CLASS];
      error.name = typeof javaClass === 'string' ? javaClass : 'java.lang.Throwable';
      for (const key of Object.keys(fields)) {
        const v = fields[key];
        if (key !== 'detailMessage' && key !== 'cause' && key !== 'name' && key !== 'message' && key !== 'stack' && key !== '__proto__' && (v === null || ['string', 'number', 'boolean'].includes(typeof v))) {
          (error as unknown as Record<string, unknown>)[key] = v;
        }
      }
      return error;
    }
  }
  return new Error(`Response data error, expect Throwable, but got: ${Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a map' : String(value)}`);
}

/**
 * Reads an attachments value (a Hessian map, decoded as a `Map` or a plain object) into string/number/boolean entries;
 * other values are dropped.
 *
 * @example
 * ```ts
 * readAttachments(new Map([['dubbo', '2.0.2']])); // Map { 'dubbo' => '2.0.2' }
 * ```
 */
export function readAttachments(value: unknown): Map<string, AttachmentValue> {
  const out = new Map<string, AttachmentValue>();
  if (value === null || typeof value !== 'object') return out;
  if (value instanceof Map) {
    for (const [key, v] of value as Map<unknown, unknown>) if (typeof key === 'string') putAttachment(out, key, v);
    return out;
  }
  // A decoded HashMap is a plain object: its keys, without an entry array per attachment.
  const fields = value as Record<string, unknown>;
  const keys = Object.keys(fields);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    putAttachment(out, key, fields[key]);
  }
  return out;
}

/** Keeps an attachment of a scalar value (a `bigint` as its decimal string); drops any other. */
function putAttachment(out: Map<string, AttachmentValue>, key: string, v: unknown): void {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out.set(key, v);
  else if (typeof v === 'bigint') out.set(key, v.toString());
}

/**
 * Attachments as the plain object the codec writes as a `java.util.HashMap` (`__proto__` is never written).
 *
 * @example
 * ```ts
 * attachmentObject(new Map([['k', 'v']])); // { k: 'v' }
 * ```
 */
export function attachmentObject(map: ReadonlyMap<string, AttachmentValue>, into: Record<string, AttachmentValue> = {}): Record<string, AttachmentValue> {
  for (const [key, value] of map) if (key !== '__proto__') into[key] = value;
  return into;
}
