import { GrpcStatus, RpcErrorCode } from '@weft/core';

/** gRPC status codes (the `grpc-status` trailer) and the status of each framework code: core's, re-exported here. */
export { GrpcStatus, grpcStatusOf } from '@weft/core';

/**
 * The `tri-exception-code` Dubbo uses for business exceptions (its `BIZ_EXCEPTION`), in place of UNKNOWN.
 *
 * @example
 * ```ts
 * headers['tri-exception-code'] = String(BIZ_EXCEPTION_CODE); // '3'
 * ```
 */
export const BIZ_EXCEPTION_CODE = 3;

const RPC_CODES: ReadonlySet<string> = new Set(Object.values(RpcErrorCode));


/**
 * The `RpcError` code a consumer reports for a `grpc-status` (Dubbo's `triCodeToDubboCode`, extended).
 *
 * @remarks Dubbo's table: 4 → `timeout`, 7 → `forbidden`, 14 → `network`, 12 → `method-not-found`, anything else →
 * `unknown`. Weft adds 1 → `cancelled`, 8 → `limit-exceeded` and 16 → `authorization`. A Weft provider also sends
 * the exact code in the `weft-error-code` trailer, which wins over this table (see {@link rpcErrorCodeFromWire}).
 * @example
 * ```ts
 * rpcErrorCodeOf(GrpcStatus.DEADLINE_EXCEEDED); // 'timeout'
 * ```
 */
export function rpcErrorCodeOf(status: number): RpcErrorCode {
  switch (status) {
    case GrpcStatus.DEADLINE_EXCEEDED:
      return RpcErrorCode.TIMEOUT;
    case GrpcStatus.PERMISSION_DENIED:
      return RpcErrorCode.FORBIDDEN;
    case GrpcStatus.UNAVAILABLE:
      return RpcErrorCode.NETWORK;
    case GrpcStatus.UNIMPLEMENTED:
      return RpcErrorCode.METHOD_NOT_FOUND;
    case GrpcStatus.CANCELLED:
      return RpcErrorCode.CANCELLED;
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return RpcErrorCode.LIMIT_EXCEEDED;
    case GrpcStatus.UNAUTHENTICATED:
      return RpcErrorCode.AUTHORIZATION;
    default:
      return RpcErrorCode.UNKNOWN;
  }
}

/**
 * The `RpcError` code of a failed response: the `weft-error-code` trailer when it names a known code, else the
 * mapping of its `grpc-status`.
 *
 * @example
 * ```ts
 * rpcErrorCodeFromWire(14, 'limit-exceeded'); // 'limit-exceeded'
 * rpcErrorCodeFromWire(14, undefined);        // 'network'
 * ```
 */
export function rpcErrorCodeFromWire(status: number, weftCode: unknown): RpcErrorCode {
  if (typeof weftCode === 'string' && RPC_CODES.has(weftCode)) return weftCode as RpcErrorCode;
  return rpcErrorCodeOf(status);
}

/**
 * Dubbo's HTTP → gRPC status table (`httpStatusToGrpcCode`), for responses that carry no `grpc-status`.
 *
 * @example
 * ```ts
 * httpStatusToGrpc(404); // 12 (UNIMPLEMENTED)
 * ```
 */
export function httpStatusToGrpc(httpStatus: number): GrpcStatus {
  if (httpStatus < 200 || httpStatus === 400 || httpStatus === 431) return GrpcStatus.INTERNAL;
  switch (httpStatus) {
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return GrpcStatus.UNAVAILABLE;
    default:
      return GrpcStatus.UNKNOWN;
  }
}

/**
 * Dubbo's gRPC → HTTP status table (`grpcCodeToHttpStatus`), used for plain-HTTP error responses.
 *
 * @example
 * ```ts
 * grpcToHttpStatus(GrpcStatus.UNAVAILABLE); // 503
 * ```
 */
export function grpcToHttpStatus(status: number): number {
  switch (status) {
    case GrpcStatus.OK:
      return 200;
    case GrpcStatus.CANCELLED:
      return 499;
    case GrpcStatus.INVALID_ARGUMENT:
    case GrpcStatus.FAILED_PRECONDITION:
    case GrpcStatus.OUT_OF_RANGE:
      return 400;
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 504;
    case GrpcStatus.NOT_FOUND:
      return 404;
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.ABORTED:
      return 409;
    case GrpcStatus.PERMISSION_DENIED:
      return 403;
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return 429;
    case GrpcStatus.UNIMPLEMENTED:
      return 501;
    case GrpcStatus.UNAVAILABLE:
      return 503;
    case GrpcStatus.UNAUTHENTICATED:
      return 401;
    default:
      return 500;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// grpc-message percent-encoding

const HEX = '0123456789ABCDEF';

/** Whether a UTF-16 code unit may stay literal in `grpc-message`: printable ASCII except `%` (and `+` unless kept). */
function isLiteral(c: number, keepPlus: boolean): boolean {
  return c >= 0x20 && c <= 0x7e && c !== 0x25 /* % */ && (keepPlus || c !== 0x2b) /* + */;
}

/**
 * Percent-encodes a `grpc-message` value: UTF-8 bytes outside printable ASCII, and `%` and `+`, become `%XX`.
 *
 * @remarks gRPC's rule, plus `+`: Dubbo's Java client decodes with Netty's `QueryStringDecoder`, which turns a
 * literal `+` into a space. `keepPlus` (IDL methods, whose status Java clients read from
 * `grpc-status-details-bin` instead) follows gRPC's rule exactly, since grpc-js decodes with `decodeURI`, which
 * leaves `%2B` as is. Returns the input itself when nothing needs encoding.
 * @example
 * ```ts
 * encodeGrpcMessage('50% off + tax: ✓'); // '50%25 off %2B tax: %E2%9C%93'
 * ```
 */
export function encodeGrpcMessage(message: string, keepPlus = false): string {
  let i = 0;
  while (i < message.length && isLiteral(message.charCodeAt(i), keepPlus)) i++;
  if (i === message.length) return message;
  let out = message.slice(0, i);
  const bytes = Buffer.from(message.slice(i), 'utf8');
  for (const b of bytes) {
    out += isLiteral(b, keepPlus) ? String.fromCharCode(b) : `%${HEX[b >> 4]}${HEX[b & 15]}`;
  }
  return out;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/**
 * Decodes a `grpc-message` leniently: valid `%XX` escapes become bytes (read as UTF-8, invalid sequences as
 * U+FFFD); a `%` not followed by two hex digits, and `+`, stay as they are (Dubbo 3.3 may send raw messages).
 *
 * @example
 * ```ts
 * decodeGrpcMessage('50%25 off %2B tax'); // '50% off + tax'
 * decodeGrpcMessage('100% sure');         // '100% sure'
 * ```
 */
export function decodeGrpcMessage(value: string | undefined): string {
  if (value === undefined) return '';
  if (!value.includes('%')) return value;
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x25 && i + 2 < value.length) {
      const hi = hexValue(value.charCodeAt(i + 1));
      const lo = hexValue(value.charCodeAt(i + 2));
      if (hi >= 0 && lo >= 0) {
        bytes.push((hi << 4) | lo);
        i += 2;
        continue;
      }
    }
    if (c < 0x80) {
      bytes.push(c);
      continue;
    }
    const codePoint = value.codePointAt(i) as number;
    if (codePoint > 0xffff) i++;
    for (const b of Buffer.from(String.fromCodePoint(codePoint), 'utf8')) bytes.push(b);
  }
  return Buffer.from(bytes).toString('utf8');
}

// ---------------------------------------------------------------------------------------------------------------
// grpc-timeout

/** Milliseconds per unit (a negative number: divide by it instead, to keep sub-millisecond units exact). */
const TIMEOUT_UNITS_MS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: -1000, n: -1_000_000 };

/**
 * Formats a remaining time as `grpc-timeout`: `<n>m` (milliseconds, as Dubbo sends), or whole seconds, minutes
 * or hours when the value would exceed the 8 digits gRPC allows.
 *
 * @example
 * ```ts
 * formatGrpcTimeout(1500); // '1500m'
 * ```
 */
export function formatGrpcTimeout(ms: number): string {
  const value = Math.max(0, Math.ceil(ms));
  if (value < 100_000_000) return `${value}m`;
  const seconds = Math.ceil(value / 1000);
  if (seconds < 100_000_000) return `${seconds}S`;
  return `${Math.min(99_999_999, Math.ceil(seconds / 3600))}H`;
}

/**
 * Parses `grpc-timeout` (`1..8` digits and a unit among `H M S m u n`) into milliseconds; `undefined` for a
 * missing or malformed value (the call then has no deadline).
 *
 * @example
 * ```ts
 * parseGrpcTimeout('2S'); // 2000
 * ```
 */
export function parseGrpcTimeout(value: string | undefined): number | undefined {
  if (value === undefined || value.length < 2 || value.length > 9) return undefined;
  const unit = TIMEOUT_UNITS_MS[value.charAt(value.length - 1)];
  if (unit === undefined) return undefined;
  let n = 0;
  for (let i = 0; i < value.length - 1; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  return unit > 0 ? n * unit : n / -unit;
}
