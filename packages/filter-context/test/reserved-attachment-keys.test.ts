import { describe, expect, it } from 'vitest';

import { isReservedAttachmentKey, RESERVED_ATTACHMENT_KEYS, RESERVED_ATTACHMENT_PREFIXES } from '@weft/filter-context';

describe('reserved attachment keys', () => {
  it("include Dubbo's ContextFilter list", () => {
    for (const key of ['path', 'interface', 'group', 'version', 'dubbo', 'token', 'timeout', '_TO', '_to', 'async', 'dubbo.tag', 'dubbo.force.tag']) {
      expect(isReservedAttachmentKey(key), key).toBe(true);
    }
  });

  it("include Weft's per-call keys and transport headers, case-insensitively and by prefix", () => {
    for (const key of ['remote.application', 'retries', 'timeout-countdown', 'Authorization', 'Content-Type', 'cookie', 'Host', 'user-agent', 'te', 'upgrade']) {
      expect(isReservedAttachmentKey(key), key).toBe(true);
    }
    for (const key of ['accept', 'Accept-Encoding', 'grpc-timeout', 'grpc-encoding', 'tri-service-version', ':authority']) {
      expect(isReservedAttachmentKey(key), key).toBe(true);
    }
  });

  it('leave user keys alone', () => {
    for (const key of ['traceId', 'tenant', 'userId', 'acceptedTerms', 'x-request-id', 'traceparent', 'tokenized', 'grpc', 'paths']) {
      expect(isReservedAttachmentKey(key), key).toBe(false);
    }
  });

  it('are published as frozen lists in lower case', () => {
    expect(Object.isFrozen(RESERVED_ATTACHMENT_KEYS)).toBe(true);
    expect(Object.isFrozen(RESERVED_ATTACHMENT_PREFIXES)).toBe(true);
    for (const key of [...RESERVED_ATTACHMENT_KEYS, ...RESERVED_ATTACHMENT_PREFIXES]) expect(key).toBe(key.toLowerCase());
    expect(RESERVED_ATTACHMENT_KEYS).toContain('_to');
    expect(RESERVED_ATTACHMENT_PREFIXES).toEqual(['accept-', 'grpc-', 'tri-', ':']);
  });
});
