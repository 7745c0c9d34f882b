import { RpcError, RpcErrorCode } from '@weft/core/spi';

/**
 * Status codes of a Dubbo response (header byte 3), as Java's `Response` defines them.
 *
 * @remarks Which side produces each, and how a Weft consumer surfaces it, is the package README's status table.
 * @example
 * ```ts
 * if (frame.status !== DubboStatus.OK) throw statusError(frame.status, message, where);
 * ```
 */
export const DubboStatus = {
  OK: 20,
  SERIALIZATION_ERROR: 25,
  CLIENT_TIMEOUT: 30,
  SERVER_TIMEOUT: 31,
  CHANNEL_INACTIVE: 35,
  BAD_REQUEST: 40,
  BAD_RESPONSE: 50,
  SERVICE_NOT_FOUND: 60,
  SERVICE_ERROR: 70,
  SERVER_ERROR: 80,
  CLIENT_ERROR: 90,
  SERVER_THREADPOOL_EXHAUSTED_ERROR: 100,
} as const;

/** Names of the statuses, for messages. */
const STATUS_NAMES: ReadonlyMap<number, string> = new Map(Object.entries(DubboStatus).map(([name, code]) => [code, name]));

/**
 * The flag (a Hessian int) that starts an OK response body.
 *
 * @example
 * ```ts
 * out.writeInt(hasAttachments ? ResponseFlag.VALUE_WITH_ATTACHMENTS : ResponseFlag.VALUE);
 * ```
 */
export const ResponseFlag = {
  EXCEPTION: 0,
  VALUE: 1,
  NULL_VALUE: 2,
  EXCEPTION_WITH_ATTACHMENTS: 3,
  VALUE_WITH_ATTACHMENTS: 4,
  NULL_VALUE_WITH_ATTACHMENTS: 5,
} as const;

/** The line a Weft provider appends to a non-OK status message so that Weft consumers get the exact code back. */
export const WEFT_CODE_LINE = 'weft-error-code: ';
const CODES: ReadonlySet<string> = new Set(Object.values(RpcErrorCode));

/** The Java class a Weft provider names in the message of a framework failure (Java prints `toString(throwable)`). */
export const RPC_EXCEPTION_CLASS = 'org.apache.dubbo.rpc.RpcException';

/**
 * The body text of a non-OK response for a Weft framework failure: Java's `"<class>: <message>"` shape plus the
 * {@link WEFT_CODE_LINE} line.
 *
 * @example
 * ```ts
 * failureMessage(new RpcError('forbidden', 'bad token')); // 'org.apache.dubbo.rpc.RpcException: bad token\nweft-error-code: forbidden\n'
 * ```
 */
export function failureMessage(error: RpcError): string {
  return `${RPC_EXCEPTION_CLASS}: ${error.message}\n${WEFT_CODE_LINE}${error.code}\n`;
}

/**
 * The `RpcError` a consumer raises for a non-OK response status: Weft's own code when a Weft provider named one,
 * else the status's meaning (timeouts → `timeout`, 25/40/50/90 → `serialization`, 60 → `no-invoker`, 100 →
 * `limit-exceeded`, others → `network`, as Java raises `RemotingException`).
 *
 * @example
 * ```ts
 * statusError(70, 'boom', 'Call Greeter.sayHello() to 127.0.0.1:20880'); // RpcError network: "… failed: status 70 SERVICE_ERROR: boom"
 * ```
 */
export function statusError(status: number, message: string | null, where: string): RpcError {
  let text = message ?? '';
  let code: RpcErrorCode | undefined;
  const at = text.lastIndexOf(WEFT_CODE_LINE);
  if (at >= 0) {
    const named = text.slice(at + WEFT_CODE_LINE.length).trim();
    if (CODES.has(named)) {
      code = named as RpcErrorCode;
      text = text.slice(0, at);
      if (text.startsWith(`${RPC_EXCEPTION_CLASS}: `)) text = text.slice(RPC_EXCEPTION_CLASS.length + 2);
    }
  }
  text = text.trimEnd();
  code ??= codeOfStatus(status);
  const name = STATUS_NAMES.get(status) ?? 'UNKNOWN_STATUS';
  return new RpcError(code, `${where} failed: status ${status} ${name}${text === '' ? '' : `: ${text}`}`, {
    retryable: code !== RpcErrorCode.SERIALIZATION,
  });
}

function codeOfStatus(status: number): RpcErrorCode {
  switch (status) {
    case DubboStatus.CLIENT_TIMEOUT:
    case DubboStatus.SERVER_TIMEOUT:
      return RpcErrorCode.TIMEOUT;
    case DubboStatus.SERIALIZATION_ERROR:
    case DubboStatus.BAD_REQUEST:
    case DubboStatus.BAD_RESPONSE:
    case DubboStatus.CLIENT_ERROR:
      return RpcErrorCode.SERIALIZATION;
    case DubboStatus.SERVICE_NOT_FOUND:
      return RpcErrorCode.NO_INVOKER;
    case DubboStatus.SERVER_THREADPOOL_EXHAUSTED_ERROR:
      return RpcErrorCode.LIMIT_EXCEEDED;
    default:
      return RpcErrorCode.NETWORK;
  }
}

/**
 * Java's `Version.getIntVersion`: `"2.0.2"` → 2000200 (each part's leading digits, base 100, ×100 for three parts).
 *
 * @example
 * ```ts
 * intVersion('2.0.99'); // 2009900
 * ```
 */
export function intVersion(version: string): number {
  const parts = version.split('.');
  let value = 0;
  for (const part of parts) {
    const digits = /^\d+/.exec(part);
    value = value * 100 + (digits === null ? 0 : Number(digits[0]));
  }
  return parts.length === 3 ? value * 100 : value;
}

/**
 * Whether a server answers a request of this body version with the attachment flags 3–5 (`"2.0.2"`…`"2.0.99"`),
 * as Java's `Version.isSupportResponseAttachment`.
 *
 * @example
 * ```ts
 * supportsResponseAttachments('2.0.2'); // true; '2.0.0', '2.6.0', '' and null: false
 * ```
 */
export function supportsResponseAttachments(version: string | null): boolean {
  if (version === null || version === '') return false;
  const value = intVersion(version);
  return value >= 2000200 && value <= 2009900;
}

const DESCRIPTOR_PART = /\[*(?:[VZBCDFIJS]|L[^;]+;)/gy;

/**
 * Splits a `dubbo://` parameter descriptor into one descriptor per parameter (`"IJ"` → `["I", "J"]`), or `undefined`
 * when it is malformed.
 *
 * @example
 * ```ts
 * splitDescriptor('Ljava/lang/String;[I'); // ['Ljava/lang/String;', '[I']
 * ```
 */
export function splitDescriptor(descriptor: string): string[] | undefined {
  const parts: string[] = [];
  DESCRIPTOR_PART.lastIndex = 0;
  while (DESCRIPTOR_PART.lastIndex < descriptor.length) {
    const at = DESCRIPTOR_PART.lastIndex;
    const match = DESCRIPTOR_PART.exec(descriptor);
    if (match === null || match.index !== at) return undefined;
    parts.push(match[0]);
  }
  return parts;
}
