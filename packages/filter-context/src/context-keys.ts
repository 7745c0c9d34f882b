/**
 * The URL keys and attachment keys the context filters read and write.
 *
 * @remarks
 * - `REMOTE_APPLICATION` (`remote.application`): attachment set by `consumercontext` on every outgoing call to
 *   the caller's application name (the `application` key of the invoker URL); the provider reads it as
 *   `RpcContext.current()?.remoteApplication`. Never passed through to nested calls.
 * - `ENABLE_TIMEOUT_COUNTDOWN` (`enable-timeout-countdown`): URL key (method level, then interface level) of a
 *   reference; `true` by default for calls made from inside an implementation: the nested call inherits the
 *   remaining deadline and the cancellation signal of the call being handled. `false` disables both.
 * - `TIMEOUT_ATTACHMENT` (`_TO`, also read as `_to`): Dubbo's attachment carrying the caller's remaining time in
 *   milliseconds. When an incoming call has no deadline but carries it, `context` derives the deadline from it.
 *
 * @example
 * ```ts
 * import { ContextKeys } from '@weft/filter-context';
 *
 * await app.refer(Inventory, { parameters: { [ContextKeys.ENABLE_TIMEOUT_COUNTDOWN]: false } });
 * ```
 */
export const ContextKeys = {
  /** Attachment: the caller's application name. */
  REMOTE_APPLICATION: 'remote.application',
  /** URL key (method level first): propagate the caller's deadline and signal to nested calls. @defaultValue true */
  ENABLE_TIMEOUT_COUNTDOWN: 'enable-timeout-countdown',
  /**
   * URL key (service and reference level): `true` carries `RpcContext.current()` across every `await` of the
   * call (AsyncLocalStorage: Node's promise hooks for the whole process); `false`, during the call's synchronous
   * part only. @defaultValue false
   */
  ASYNC: 'context.async',
  /** Attachment: remaining time in ms sent by Dubbo-style callers (`_TO`; `_to` is read too). */
  TIMEOUT_ATTACHMENT: '_TO',
} as const;
