/**
 * `@weft/filter-context`: Dubbo's `context` and `consumercontext` filters — `RpcContext.current()` inside
 * implementations, implicit attachment passthrough and deadline propagation for nested calls.
 * @packageDocumentation
 */
export { ContextFilter } from './context-filter.js';
export { ConsumerContextFilter } from './consumer-context-filter.js';
export { TimeoutCountdownConfigValidator } from './timeout-countdown-config-validator.js';
export { ContextKeys } from './context-keys.js';
export { getServerAttachments } from './server-attachments.js';
export { getClientAttachments, withAttachments } from './with-attachments.js';
export { isReservedAttachmentKey, RESERVED_ATTACHMENT_KEYS, RESERVED_ATTACHMENT_PREFIXES } from './reserved-attachment-keys.js';
