/**
 * Attachment keys that describe a call's transport or routing, not its business context: Weft never treats them
 * as user attachments (compared case-insensitively).
 *
 * @remarks
 * Dubbo's list (`ContextFilter`'s unloading keys) — `path`, `interface`, `group`, `version`, `dubbo`, `token`,
 * `timeout`, `_TO`/`_to`, `async`, `dubbo.tag`, `dubbo.force.tag` — plus the keys Weft itself uses to steer one
 * call (`remote.application`, the cluster's `retries` override, `timeout-countdown`) and the HTTP headers a
 * transport may surface as attachments. Keys starting with one of {@link RESERVED_ATTACHMENT_PREFIXES} are
 * reserved too. {@link getServerAttachments} leaves them out, and `consumercontext` never passes them on to
 * nested calls (passing on a caller's `token` or `retries` would be a bug; passing on `remote.application`
 * would lie about who calls).
 *
 * @example
 * ```ts
 * RESERVED_ATTACHMENT_KEYS.includes('token'); // true
 * ```
 */
export const RESERVED_ATTACHMENT_KEYS: readonly string[] = Object.freeze([
  // Dubbo's ContextFilter list.
  'path',
  'interface',
  'group',
  'version',
  'dubbo',
  'token',
  'timeout',
  '_to',
  'async',
  'dubbo.tag',
  'dubbo.force.tag',
  // Weft's per-call control keys.
  'remote.application',
  'retries',
  'timeout-countdown',
  // HTTP request and hop-by-hop headers.
  'accept',
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'user-agent',
  'content-type',
  'content-length',
  'content-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'origin',
  'referer',
  'cache-control',
  'pragma',
  'expect',
]);

/**
 * Prefixes of reserved attachment keys (lower case): `accept-` (HTTP content negotiation), `grpc-` and `tri-`
 * (gRPC and Triple protocol headers), `:` (HTTP/2 pseudo-headers).
 *
 * @remarks See {@link RESERVED_ATTACHMENT_KEYS}.
 * @example
 * ```ts
 * isReservedAttachmentKey('grpc-timeout'); // true, by prefix
 * ```
 */
export const RESERVED_ATTACHMENT_PREFIXES: readonly string[] = Object.freeze(['accept-', 'grpc-', 'tri-', ':']);

const exact: ReadonlySet<string> = new Set(RESERVED_ATTACHMENT_KEYS);

/**
 * Tells whether an attachment key is reserved (transport or routing) rather than a user attachment.
 *
 * @remarks Case-insensitive: `_TO`, `_to` and `Content-Type` are all reserved. The rule is
 * {@link RESERVED_ATTACHMENT_KEYS} plus {@link RESERVED_ATTACHMENT_PREFIXES}.
 * @example
 * ```ts
 * isReservedAttachmentKey('_TO');     // true
 * isReservedAttachmentKey('traceId'); // false
 * ```
 */
export function isReservedAttachmentKey(key: string): boolean {
  const lower = key.toLowerCase();
  if (exact.has(lower)) return true;
  for (const prefix of RESERVED_ATTACHMENT_PREFIXES) if (lower.startsWith(prefix)) return true;
  return false;
}
