import type { MethodDescriptor, ServiceDefinition } from '../service/service-definition.js';

/** A value carried as an attachment: travels with the call, in both directions. */
export type AttachmentValue = string | number | boolean;

/** Initial state of an {@link Invocation}. */
export interface InvocationInit {
  /** The method being called. */
  readonly methodName: string;
  /** The call's arguments. */
  readonly args?: readonly unknown[];
  /** Attachments sent with the call. */
  readonly attachments?: Readonly<Record<string, AttachmentValue>> | ReadonlyMap<string, AttachmentValue>;
  /** Aborts the call (the consumer gave up, or a deadline passed). */
  readonly signal?: AbortSignal;
  /** Absolute deadline, in epoch milliseconds. */
  readonly deadline?: number;
  /** The service called, when known (proxies and exporters set it). */
  readonly service?: ServiceDefinition;
  /** A per-call timeout in ms replacing the configured one (0: none). */
  readonly timeout?: number;
}

/** An abortable call's state: the controller (created when the signal is first read) and a pending abort. */
interface AbortState {
  controller: AbortController | undefined;
  requested: boolean;
  reason: unknown;
}

/** "Abortable, nothing created yet" (what `enableAbort` sets, shared: never written, replaced on first use). */
const ABORTABLE: AbortState = Object.freeze({ controller: undefined, requested: false, reason: undefined }) as AbortState;

function freshAbortState(): AbortState {
  return { controller: undefined, requested: false, reason: undefined };
}

/**
 * One call in flight: method, arguments, attachments, and its cancellation signal and deadline.
 *
 * @remarks
 * Created once per call by the proxy (consumer) or the protocol (provider) and passed down the chain. Filters
 * may read and write attachments; arguments are owned by the call. `getMethodName()` lets adaptive extensions
 * read method-level URL keys (`<method>.<key>`). The deadline is absolute so it survives hops: the Triple
 * protocol sends the remaining time as `grpc-timeout` and the provider rebuilds the deadline.
 *
 * @example
 * ```ts
 * const invocation = new Invocation({ methodName: 'sayHello', args: ['world'], attachments: { traceId: 't-1' } });
 * invocation.setAttachment('token', 'secret');
 * ```
 */
export class Invocation {
  // Fields are declared (not initialised) and each assigned exactly once, in this order, by the constructor:
  // one hidden class and no field-initialiser pass for the two invocations every call allocates.
  /** The method being called. */
  declare readonly methodName: string;
  /** The call's arguments. */
  declare args: unknown[];
  /** Absolute deadline in epoch milliseconds, if any. */
  declare deadline: number | undefined;
  /** The service called, when known. */
  declare service: ServiceDefinition | undefined;
  /** A per-call timeout in ms that replaces the configured `timeout` (0: none); undefined: use the URL's. */
  declare timeout: number | undefined;
  /**
   * @internal Bookkeeping of consumer invokers: the deadline written for the current attempt (while it equals
   * `deadline`, that deadline is this invocation's own, not upstream's)…
   */
  declare attemptDeadline: number | undefined;
  /** @internal … and the upstream deadline it was derived from (so a retry of the same invocation gets a fresh timeout). */
  declare attemptUpstream: number | undefined;
  /**
   * The framework's clock reading (epoch ms) for the synchronous dispatch in progress, if one was taken: an invoker
   * that read the clock to arm a deadline sets it while it hands the call on, and clears it when that returns; the
   * in-process protocol passes the consumer's reading on to the provider side's invocation the same way (the call
   * arrives in the same instant). Code that runs within that dispatch may use it instead of reading the clock again —
   * it is as old as the synchronous work done since; code that runs later (after an asynchronous step) sees
   * `undefined` and reads the clock itself.
   */
  declare startedAt: number | undefined;
  private declare externalSignal: AbortSignal | undefined;
  /** Set once the call was made abortable (enableAbort/abort): kept apart so a plain call's object stays small. */
  private declare abortState: AbortState | undefined;
  private declare attachmentMap: Map<string, AttachmentValue> | undefined;
  // A lone attachment (the usual case: `remote.application`) lives in these two fields; the map is created for a
  // second one, or when all are read. Once the map exists they stay unused.
  private declare loneKey: string | undefined;
  private declare loneValue: AttachmentValue | undefined;
  private declare attributeMap: Map<string | symbol, unknown> | undefined;

  constructor(init: InvocationInit);
  /** @internal The allocation-free form used by {@link Invocation.of}. */
  constructor(init: string, args: unknown[], service: ServiceDefinition | undefined);
  constructor(init: InvocationInit | string, args?: unknown[], service?: ServiceDefinition) {
    // The string form is the per-call path: kept tiny so that it inlines; the object form is built by `fill`.
    if (typeof init !== 'string') {
      fill(this, init);
      return;
    }
    this.methodName = init;
    this.args = args as unknown[];
    this.deadline = undefined;
    this.service = service;
    this.timeout = undefined;
    this.attemptDeadline = undefined;
    this.attemptUpstream = undefined;
    this.startedAt = undefined;
    this.externalSignal = undefined;
    this.abortState = undefined;
    this.attachmentMap = undefined;
    this.loneKey = undefined;
    this.loneValue = undefined;
    this.attributeMap = undefined;
  }

  /**
   * Creates an invocation that takes ownership of `args` (no copy): the hot path of proxies and protocols.
   */
  static of(methodName: string, args: unknown[], service?: ServiceDefinition): Invocation {
    return new Invocation(methodName, args, service);
  }

  /**
   * A local attribute: per-call state for filters and invokers of this process (Dubbo's invocation attributes).
   * Never sent to the other side. Use a symbol or a namespaced string as the key.
   */
  getAttribute(key: string | symbol): unknown {
    return this.attributeMap?.get(key);
  }

  /** Sets a local attribute (see {@link Invocation.getAttribute}). */
  setAttribute(key: string | symbol, value: unknown): this {
    (this.attributeMap ??= new Map()).set(key, value);
    return this;
  }

  /** Whether an attachment is set. */
  hasAttachment(key: string): boolean {
    const map = this.attachmentMap;
    return map === undefined ? this.loneKey === key : map.has(key);
  }

  /**
   * Aborts when the call is cancelled or its time is up.
   *
   * @remarks The caller's signal, if any. Once {@link Invocation.enableAbort} was called (the provider's timeout
   * filter does), reading it gives a signal that {@link Invocation.abort} aborts — created only when someone
   * reads it, so calls whose implementation never looks pay nothing; it also follows the caller's signal.
   */
  get signal(): AbortSignal | undefined {
    let state = this.abortState;
    if (state === undefined) return this.externalSignal;
    if (state.controller !== undefined) return state.controller.signal;
    if (state === ABORTABLE) state = this.abortState = freshAbortState();
    const controller = new AbortController();
    state.controller = controller;
    const external = this.externalSignal;
    if (state.requested) controller.abort(state.reason);
    else if (external !== undefined) {
      if (external.aborted) controller.abort(external.reason);
      else external.addEventListener('abort', () => controller.abort(external.reason), { once: true });
    }
    return controller.signal;
  }

  set signal(signal: AbortSignal | undefined) {
    this.externalSignal = signal;
    const state = this.abortState;
    if (state?.controller !== undefined && !state.controller.signal.aborted) {
      state.controller = undefined;
    }
  }

  /** Makes {@link Invocation.signal} abortable by {@link Invocation.abort} (lazily: nothing is created until read). */
  enableAbort(): void {
    this.abortState ??= ABORTABLE;
  }

  /** Aborts the call's signal with `reason` (see {@link Invocation.enableAbort}); later reads see it aborted. */
  abort(reason?: unknown): void {
    let state = this.abortState;
    if (state === undefined || state === ABORTABLE) state = this.abortState = freshAbortState();
    if (state.controller !== undefined) {
      state.controller.abort(reason);
      return;
    }
    state.requested = true;
    state.reason = reason;
  }

  /** Whether {@link Invocation.abort} was called or the caller's signal aborted. */
  get aborted(): boolean {
    const state = this.abortState;
    return (
      (state !== undefined && (state.requested || state.controller?.signal.aborted === true)) || this.externalSignal?.aborted === true
    );
  }

  /** Whether any attachment is set (without creating the attachment map). */
  hasAttachments(): boolean {
    const map = this.attachmentMap;
    return map === undefined ? this.loneKey !== undefined : map.size > 0;
  }

  /** The called method's descriptor (declared argument and return types), when the service is known. */
  get method(): MethodDescriptor | undefined {
    return this.service?.getMethod(this.methodName);
  }

  /** The method being called. */
  getMethodName(): string {
    return this.methodName;
  }

  /** One attachment. */
  getAttachment(key: string): AttachmentValue | undefined {
    const map = this.attachmentMap;
    if (map !== undefined) return map.get(key);
    return key === this.loneKey ? this.loneValue : undefined;
  }

  /** Sets one attachment. */
  setAttachment(key: string, value: AttachmentValue): this {
    const map = this.attachmentMap;
    if (map !== undefined) map.set(key, value);
    else if (this.loneKey === undefined || this.loneKey === key) {
      this.loneKey = key;
      this.loneValue = value;
    } else this.promote().set(key, value);
    return this;
  }

  /** Removes one attachment. */
  removeAttachment(key: string): this {
    const map = this.attachmentMap;
    if (map !== undefined) map.delete(key);
    else if (key === this.loneKey) this.loneKey = this.loneValue = undefined;
    return this;
  }

  /** All attachments (a live read-only view). */
  getAttachments(): ReadonlyMap<string, AttachmentValue> {
    return this.attachmentMap ?? this.promote();
  }

  /** @internal Copies every attachment onto `target` (without creating a map for a lone one). */
  copyAttachmentsTo(target: Invocation): void {
    const map = this.attachmentMap;
    if (map === undefined) {
      if (this.loneKey !== undefined) target.setAttachment(this.loneKey, this.loneValue as AttachmentValue);
      return;
    }
    for (const [key, value] of map) target.setAttachment(key, value);
  }

  /** The attachment map, created now (holding the lone attachment, if any). */
  private promote(): Map<string, AttachmentValue> {
    const map = new Map<string, AttachmentValue>();
    if (this.loneKey !== undefined) map.set(this.loneKey, this.loneValue as AttachmentValue);
    this.loneKey = this.loneValue = undefined;
    this.attachmentMap = map;
    return map;
  }

  /** Milliseconds left before the deadline (negative once passed), or `undefined` without a deadline. */
  remainingTime(now: number = Date.now()): number | undefined {
    return this.deadline === undefined ? undefined : this.deadline - now;
  }
}

/** The object form of the constructor: the same fields, assigned in the same order (one hidden class). */
function fill(target: Invocation, init: InvocationInit): void {
  const fields = target as unknown as Record<string, unknown>;
  fields['methodName'] = init.methodName;
  fields['args'] = init.args === undefined ? [] : [...init.args];
  fields['deadline'] = init.deadline;
  fields['service'] = init.service;
  fields['timeout'] = init.timeout;
  fields['attemptDeadline'] = undefined;
  fields['attemptUpstream'] = undefined;
  fields['startedAt'] = undefined;
  fields['externalSignal'] = init.signal;
  fields['abortState'] = undefined;
  const attachments = init.attachments;
  fields['attachmentMap'] =
    attachments === undefined ? undefined : new Map(attachments instanceof Map ? attachments : Object.entries(attachments));
  fields['loneKey'] = undefined;
  fields['loneValue'] = undefined;
  fields['attributeMap'] = undefined;
}
