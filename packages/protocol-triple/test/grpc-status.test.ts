// Status mapping both ways (§A.7), grpc-message percent-encoding (§A.6), grpc-timeout (§A.3, §A.14).
import { describe, expect, it } from 'vitest';

import { RpcErrorCode } from '@weft/core';
import {
  decodeGrpcMessage,
  encodeGrpcMessage,
  formatGrpcTimeout,
  GrpcStatus,
  grpcStatusOf,
  grpcToHttpStatus,
  httpStatusToGrpc,
  parseGrpcTimeout,
  rpcErrorCodeFromWire,
  rpcErrorCodeOf,
} from '@weft/protocol-triple';

describe('RpcError code → grpc-status (provider, Dubbo getStatus)', () => {
  it.each([
    [RpcErrorCode.TIMEOUT, GrpcStatus.DEADLINE_EXCEEDED],
    [RpcErrorCode.TIMEOUT_TERMINATE, GrpcStatus.DEADLINE_EXCEEDED],
    [RpcErrorCode.FORBIDDEN, GrpcStatus.PERMISSION_DENIED],
    [RpcErrorCode.AUTHORIZATION, GrpcStatus.UNAUTHENTICATED],
    [RpcErrorCode.NETWORK, GrpcStatus.UNAVAILABLE],
    [RpcErrorCode.LIMIT_EXCEEDED, GrpcStatus.UNAVAILABLE],
    [RpcErrorCode.METHOD_NOT_FOUND, GrpcStatus.NOT_FOUND],
    [RpcErrorCode.SERIALIZATION, GrpcStatus.INTERNAL],
    [RpcErrorCode.CANCELLED, GrpcStatus.CANCELLED],
    [RpcErrorCode.BIZ, GrpcStatus.UNKNOWN],
    [RpcErrorCode.UNKNOWN, GrpcStatus.UNKNOWN],
    [RpcErrorCode.NO_INVOKER, GrpcStatus.UNKNOWN],
    [RpcErrorCode.VALIDATION, GrpcStatus.UNKNOWN],
    [RpcErrorCode.REGISTRY, GrpcStatus.UNKNOWN],
  ] as const)('%s → %i', (code, status) => {
    expect(grpcStatusOf(code)).toBe(status);
  });
});

describe('grpc-status → RpcError code (consumer, Dubbo triCodeToDubboCode + Weft additions)', () => {
  it.each([
    [GrpcStatus.DEADLINE_EXCEEDED, RpcErrorCode.TIMEOUT],
    [GrpcStatus.PERMISSION_DENIED, RpcErrorCode.FORBIDDEN],
    [GrpcStatus.UNAVAILABLE, RpcErrorCode.NETWORK],
    [GrpcStatus.UNIMPLEMENTED, RpcErrorCode.METHOD_NOT_FOUND],
    [GrpcStatus.CANCELLED, RpcErrorCode.CANCELLED],
    [GrpcStatus.RESOURCE_EXHAUSTED, RpcErrorCode.LIMIT_EXCEEDED],
    [GrpcStatus.UNAUTHENTICATED, RpcErrorCode.AUTHORIZATION],
    [GrpcStatus.UNKNOWN, RpcErrorCode.UNKNOWN],
    [GrpcStatus.INTERNAL, RpcErrorCode.UNKNOWN],
    [GrpcStatus.NOT_FOUND, RpcErrorCode.UNKNOWN],
    [GrpcStatus.INVALID_ARGUMENT, RpcErrorCode.UNKNOWN],
    [99, RpcErrorCode.UNKNOWN],
  ] as const)('%i → %s', (status, code) => {
    expect(rpcErrorCodeOf(status)).toBe(code);
  });

  it("prefers Weft's exact code from the weft-error-code trailer, when it is a known code", () => {
    expect(rpcErrorCodeFromWire(GrpcStatus.UNAVAILABLE, 'limit-exceeded')).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect(rpcErrorCodeFromWire(GrpcStatus.UNKNOWN, 'no-invoker')).toBe(RpcErrorCode.NO_INVOKER);
    expect(rpcErrorCodeFromWire(GrpcStatus.UNAVAILABLE, 'made-up')).toBe(RpcErrorCode.NETWORK);
    expect(rpcErrorCodeFromWire(GrpcStatus.UNAVAILABLE, undefined)).toBe(RpcErrorCode.NETWORK);
  });

  it('round-trips every code through a Weft peer (status + trailer)', () => {
    for (const code of Object.values(RpcErrorCode)) expect(rpcErrorCodeFromWire(grpcStatusOf(code), code)).toBe(code);
  });
});

describe('HTTP ↔ gRPC status tables', () => {
  it.each([
    [100, GrpcStatus.INTERNAL],
    [400, GrpcStatus.INTERNAL],
    [431, GrpcStatus.INTERNAL],
    [401, GrpcStatus.UNAUTHENTICATED],
    [403, GrpcStatus.PERMISSION_DENIED],
    [404, GrpcStatus.UNIMPLEMENTED],
    [429, GrpcStatus.UNAVAILABLE],
    [502, GrpcStatus.UNAVAILABLE],
    [503, GrpcStatus.UNAVAILABLE],
    [504, GrpcStatus.UNAVAILABLE],
    [500, GrpcStatus.UNKNOWN],
    [408, GrpcStatus.UNKNOWN],
    [415, GrpcStatus.UNKNOWN],
  ] as const)('HTTP %i → grpc %i', (http, grpc) => {
    expect(httpStatusToGrpc(http)).toBe(grpc);
  });

  it.each([
    [GrpcStatus.OK, 200],
    [GrpcStatus.CANCELLED, 499],
    [GrpcStatus.UNKNOWN, 500],
    [GrpcStatus.INTERNAL, 500],
    [GrpcStatus.DATA_LOSS, 500],
    [GrpcStatus.INVALID_ARGUMENT, 400],
    [GrpcStatus.FAILED_PRECONDITION, 400],
    [GrpcStatus.OUT_OF_RANGE, 400],
    [GrpcStatus.DEADLINE_EXCEEDED, 504],
    [GrpcStatus.NOT_FOUND, 404],
    [GrpcStatus.ALREADY_EXISTS, 409],
    [GrpcStatus.ABORTED, 409],
    [GrpcStatus.PERMISSION_DENIED, 403],
    [GrpcStatus.RESOURCE_EXHAUSTED, 429],
    [GrpcStatus.UNIMPLEMENTED, 501],
    [GrpcStatus.UNAVAILABLE, 503],
    [GrpcStatus.UNAUTHENTICATED, 401],
  ] as const)('grpc %i → HTTP %i', (grpc, http) => {
    expect(grpcToHttpStatus(grpc)).toBe(http);
  });
});

describe('grpc-message percent-encoding', () => {
  it('keeps printable ASCII, and encodes %, + and non-ASCII as UTF-8 %XX', () => {
    expect(encodeGrpcMessage('plain message: (ok) [1/2]')).toBe('plain message: (ok) [1/2]');
    expect(encodeGrpcMessage('50% off + tax')).toBe('50%25 off %2B tax');
    // IDL methods: gRPC's rule exactly (grpc-js decodes with decodeURI, which would leave %2B as is).
    expect(encodeGrpcMessage('50% off + tax: ✓', true)).toBe('50%25 off + tax: %E2%9C%93');
    expect(encodeGrpcMessage('naïve ✓')).toBe('na%C3%AFve %E2%9C%93');
    expect(encodeGrpcMessage('line\nbreak\ttab')).toBe('line%0Abreak%09tab');
    expect(encodeGrpcMessage('emoji 😀')).toBe('emoji %F0%9F%98%80');
  });

  it('decodes leniently: valid escapes, raw text, a stray % and + as they are', () => {
    expect(decodeGrpcMessage('50%25 off %2B tax')).toBe('50% off + tax');
    expect(decodeGrpcMessage('na%C3%AFve %E2%9C%93')).toBe('naïve ✓');
    expect(decodeGrpcMessage('100% sure, 5%')).toBe('100% sure, 5%');
    expect(decodeGrpcMessage('a+b')).toBe('a+b');
    expect(decodeGrpcMessage('raw ünïcode and %41')).toBe('raw ünïcode and A');
    expect(decodeGrpcMessage('bad %E2%9C')).toBe('bad \uFFFD');
    expect(decodeGrpcMessage(undefined)).toBe('');
  });

  it('round-trips any text', () => {
    for (const text of ['', 'x', '%%%', '+ +', 'π ≈ 3.14 % 😀\r\n', '\u0000\u007f']) {
      expect(decodeGrpcMessage(encodeGrpcMessage(text))).toBe(text);
    }
  });
});

describe('grpc-timeout', () => {
  it('formats milliseconds as <n>m, larger values in coarser units (8 digits at most)', () => {
    expect(formatGrpcTimeout(1500)).toBe('1500m');
    expect(formatGrpcTimeout(0.2)).toBe('1m');
    expect(formatGrpcTimeout(-5)).toBe('0m');
    expect(formatGrpcTimeout(99_999_999)).toBe('99999999m');
    expect(formatGrpcTimeout(100_000_000)).toBe('100000S');
    expect(formatGrpcTimeout(1e12)).toBe('277778H');
    expect(formatGrpcTimeout(1e18)).toBe('99999999H');
  });

  it('parses every unit into ms and rejects malformed values', () => {
    expect(parseGrpcTimeout('2S')).toBe(2000);
    expect(parseGrpcTimeout('1500m')).toBe(1500);
    expect(parseGrpcTimeout('1M')).toBe(60_000);
    expect(parseGrpcTimeout('1H')).toBe(3_600_000);
    expect(parseGrpcTimeout('5000u')).toBe(5);
    expect(parseGrpcTimeout('3000000n')).toBe(3);
    for (const bad of [undefined, '', 'm', '10', '10x', '-5m', '1.5S', '123456789m']) expect(parseGrpcTimeout(bad)).toBeUndefined();
  });
});
