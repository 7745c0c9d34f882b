import {
  AbstractInvoker,
  DeadlineWheel,
  asDeclaredError,
  Result,
  RpcError,
  RpcErrorCode,
  type AttachmentValue,
  type WheelEntry,
  type Invocation,
  type MethodDescriptor,
  type ObjectSerialization,
  type ServiceDefinition,
  type URL,
} from '@weft/core/spi';

import type { BodyCodecs } from '../frame/body-codecs.js';
import { attachmentObject, readResponseBody, writeRequestBody, type RequestHead } from '../frame/bodies.js';
import { Flag, type Frame } from '../frame/header.js';
import { DubboStatus, statusError } from '../frame/status.js';
import { DubboDefaults, DubboKeys } from '../dubbo-keys.js';
import { TWO_32, type DubboConnection, type PendingCall } from './dubbo-connection.js';

/** Per-method request data, computed on the first call of each method. */
interface ClientMethod {
  readonly name: string;
  readonly descriptor: MethodDescriptor | undefined;
  /** The `dubbo://` parameter descriptor (`Ljava/lang/String;I`). */
  readonly parameters: string;
  /** `<method>.return=false`: one-way. */
  readonly oneWay: boolean;
  /** The request body's head fields (the same for every call of the method). */
  readonly head: RequestHead;
  /** What a `null` answer becomes: `undefined` for methods declaring no return type, else `null`. */
  readonly empty: unknown;
}

/**
 * What a {@link DubboInvoker} is built from.
 *
 * @example
 * ```ts
 * const invoker = new DubboInvoker({ service: Greeter, url, connection, codec: hessian, codecs });
 * ```
 */
export interface DubboInvokerInit {
  readonly service: ServiceDefinition;
  readonly url: URL;
  readonly connection: DubboConnection;
  readonly codec: ObjectSerialization;
  readonly codecs: BodyCodecs;
}

const ECHO_METHOD = '$echo';
const ECHO_DESCRIPTOR = 'Ljava/lang/Object;';

/**
 * The consumer side of `dubbo`: each call is one request frame on the provider address's shared connection.
 *
 * @remarks
 * Extends `AbstractInvoker` (timeout, deadline, cancellation). The request carries the attachments a Java 3.x
 * consumer sends — `path`, `interface`, `version` (`0.0.0` when none), `group`, `timeout` (the remaining ms, from which
 * the provider rebuilds the deadline), `remote.application` — plus the invocation's. When the deadline passes or the
 * caller aborts, the call settles at once and a late response is dropped. A business exception resolves as a
 * `Result` carrying the error rebuilt as the declared class; a non-OK status rejects with an `RpcError` (README,
 * "Status codes"). `<method>.return=false` (or the attachment `return=false`) sends one-way and resolves at once.
 * `isAvailable()` is false while disconnected and after the provider's `readonly` event.
 *
 * @example
 * ```ts
 * const invoker = await protocol.refer(Greeter, URL.parse('dubbo://127.0.0.1:20880/org.acme.Greeter'));
 * const result = await invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['world'] }));
 * ```
 */
export class DubboInvoker extends AbstractInvoker {
  readonly connection: DubboConnection;
  readonly codec: ObjectSerialization;
  /** The service name used in messages. */
  readonly serviceName: string;
  private readonly codecs: BodyCodecs;
  private readonly service: ServiceDefinition;
  private readonly methods = new Map<string, ClientMethod>();
  private readonly deadlines = new DeadlineWheel(10);
  private readonly path: string;
  private readonly version: string;
  private readonly base: Readonly<Record<string, AttachmentValue>>;
  /** `base` with a `timeout` slot, for calls with a deadline. */
  private readonly timedBase: Readonly<Record<string, AttachmentValue>>;
  private readonly payload: number;
  private readonly requestFlag: number;
  private released = false;

  constructor(init: DubboInvokerInit) {
    super(init.url);
    const url = init.url;
    this.service = init.service;
    this.connection = init.connection;
    this.codec = init.codec;
    this.codecs = init.codecs;
    this.path = url.path || init.service.name;
    this.version = url.getVersion() || '0.0.0';
    this.serviceName = url.getServiceKey() ?? init.service.name;
    this.payload = url.getParameter(DubboKeys.PAYLOAD, DubboDefaults.PAYLOAD);
    this.requestFlag = Flag.REQUEST | init.codec.dubboSerializationId;
    const base: Record<string, AttachmentValue> = { path: this.path, interface: url.getServiceInterface() ?? this.path, version: this.version };
    const group = url.getGroup();
    if (group) base['group'] = group;
    const application = url.getApplication();
    if (application) base['remote.application'] = application;
    this.base = base;
    this.timedBase = { ...base, timeout: '' };
  }

  override isAvailable(): boolean {
    return super.isAvailable() && this.connection.isAvailable();
  }

  /** Refuses new calls and releases the shared connection (closed once no reference uses it). */
  override destroy(): void {
    super.destroy();
    if (this.released) return;
    this.released = true;
    this.connection.release();
  }

  protected doInvoke(invocation: Invocation): Promise<Result> {
    const method = this.methodOf(invocation.methodName);
    const connection = this.connection;
    if (!connection.isConnected) {
      return Promise.reject(new RpcError(RpcErrorCode.NETWORK, `${this.where(method.name)} failed: ${connection.describeUnavailable()}.`, { unsent: true }));
    }
    const deadline = invocation.deadline;
    // A copy of a base that already has every key set here: adding keys to a copy costs about 1 µs each in V8.
    const attachments = deadline === undefined ? { ...this.base } : { ...this.timedBase };
    if (invocation.hasAttachments()) attachmentObject(invocation.getAttachments(), attachments);
    if (deadline !== undefined) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        return Promise.reject(new RpcError(RpcErrorCode.TIMEOUT, `${this.where(method.name)} timed out before it was sent.`, { unsent: true }));
      }
      attachments['timeout'] = String(remaining);
    }
    const oneWay = method.oneWay || attachments['return'] === 'false';
    let body: Uint8Array;
    try {
      body = writeRequestBody(
        this.codec,
        method.head,
        invocation.args,
        method.descriptor?.args,
        attachments,
      );
    } catch (error) {
      const rpc = RpcError.from(error, RpcErrorCode.SERIALIZATION);
      return Promise.reject(new RpcError(rpc.code, `${this.where(method.name)} not sent: ${rpc.message}`, { cause: error, unsent: true, retryable: false }));
    }
    if (this.payload > 0 && body.length > this.payload) {
      return Promise.reject(
        new RpcError(
          RpcErrorCode.LIMIT_EXCEEDED,
          `${this.where(method.name)} not sent: its request body of ${body.length} bytes exceeds the payload limit of ${this.payload} bytes (URL key "payload").`,
          { unsent: true, retryable: false },
        ),
      );
    }
    if (oneWay) {
      const id = connection.nextRequestId();
      connection.writeFrame(this.requestFlag, 0, Math.floor(id / TWO_32), id >>> 0, body);
      return Promise.resolve(Result.of(undefined));
    }
    return new Promise<Result>((resolve, reject) => {
      const call = new ClientCall(this, method, invocation, resolve, reject);
      const id = connection.register(call);
      call.id = id;
      connection.writeFrame(this.requestFlag | Flag.TWO_WAY, 0, Math.floor(id / TWO_32), id >>> 0, body);
      if (deadline !== undefined) {
        // The call is its own wheel entry: an armed deadline allocates nothing.
        call.deadline = deadline;
        this.deadlines.arm(call);
      }
    });
  }

  /** @internal Takes a settled call's deadline off the wheel (nothing when it had none). */
  disarm(call: WheelEntry): void {
    this.deadlines.remove(call);
  }

  /** @internal The codec of a response's serialization id. */
  codecOf(frame: Frame): ObjectSerialization | undefined {
    const id = frame.flag & Flag.SERIALIZATION_MASK;
    return id === this.codec.dubboSerializationId ? this.codec : this.codecs.byId(id);
  }

  /** @internal `Call <service>.<method>() to <address>`. */
  where(method: string): string {
    return `Call ${this.serviceName}.${method}() to ${this.connection.address}`;
  }

  private methodOf(name: string): ClientMethod {
    let method = this.methods.get(name);
    if (method === undefined) {
      const descriptor = this.service.getMethod(name);
      let parameters: string;
      if (descriptor === undefined && name === ECHO_METHOD) parameters = ECHO_DESCRIPTOR;
      else parameters = this.codec.parameterDescriptor(descriptor?.args ?? []);
      method = {
        name,
        descriptor,
        parameters,
        oneWay: this.url.getMethodParameter(name, DubboKeys.RETURN, true) === false,
        head: { dubboVersion: DubboDefaults.DUBBO_VERSION, path: this.path, version: this.version, method: name, descriptor: parameters },
        empty: descriptor === undefined || descriptor.returns === null || descriptor.returns === undefined ? undefined : null,
      };
      this.methods.set(name, method);
    }
    return method;
  }
}

/** One two-way call waiting for its response. */
class ClientCall implements PendingCall, WheelEntry {
  id = 0;
  /** Epoch ms of the call's deadline (set before it is armed on the invoker's wheel). */
  deadline = 0;
  wheelBucket: object | undefined = undefined;
  wheelPrev: WheelEntry | undefined = undefined;
  wheelNext: WheelEntry | undefined = undefined;
  private done = false;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly invoker: DubboInvoker,
    private readonly method: ClientMethod,
    private readonly invocation: Invocation,
    private readonly resolve: (result: Result) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    const signal = invocation.signal;
    if (signal !== undefined) {
      this.onAbort = () => this.cancel(RpcErrorCode.CANCELLED, 'was cancelled by its caller');
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  complete(frame: Frame): void {
    if (this.done) return;
    const codec = this.invoker.codecOf(frame);
    if (codec === undefined) {
      this.fail(new RpcError(RpcErrorCode.SERIALIZATION, `${this.where()} failed: the response has unknown serialization id ${frame.flag & Flag.SERIALIZATION_MASK}.`));
      return;
    }
    if (frame.status !== DubboStatus.OK) {
      let message: string | null = null;
      try {
        message = codec.createInput(frame.body).readString();
      } catch {
        message = frame.body.length === 0 ? null : `(undecodable message of ${frame.body.length} bytes)`;
      }
      this.fail(statusError(frame.status, message, this.where()));
      return;
    }
    let result: Result;
    try {
      const descriptor = this.method.descriptor;
      const body = readResponseBody(codec, frame.body, descriptor?.returns ?? undefined, this.method.empty);
      result = body.error !== undefined ? Result.ofException(rebuild(body.error, descriptor)) : Result.of(body.value);
      if (body.attachments !== undefined) for (const [key, value] of body.attachments) if (key !== 'dubbo') result.setAttachment(key, value);
    } catch (error) {
      const rpc = RpcError.from(error, RpcErrorCode.SERIALIZATION);
      this.fail(new RpcError(RpcErrorCode.SERIALIZATION, `${this.where()} failed: undecodable response: ${rpc.message}`, { cause: error, retryable: false }));
      return;
    }
    this.settle();
    this.resolve(result);
  }

  lost(reason: string): void {
    this.fail(new RpcError(RpcErrorCode.NETWORK, `${this.invoker.where(this.method.name)} failed: ${reason} (status ${DubboStatus.CHANNEL_INACTIVE} CHANNEL_INACTIVE).`));
  }

  oversized(length: number): void {
    this.fail(
      new RpcError(
        RpcErrorCode.LIMIT_EXCEEDED,
        `${this.invoker.where(this.method.name)} failed: the response body of ${length} bytes exceeds the payload limit (URL key "payload"); it was not read.`,
        { retryable: false },
      ),
    );
  }

  expire(): void {
    this.cancel(RpcErrorCode.TIMEOUT, 'timed out (deadline)');
  }

  private cancel(code: RpcErrorCode, what: string): void {
    if (this.done) return;
    this.invoker.connection.forget(this.id);
    this.fail(new RpcError(code, `${this.invoker.where(this.method.name)} ${what}.`));
  }

  private fail(error: RpcError): void {
    if (this.done) return;
    this.settle();
    this.reject(error);
  }

  /** `Call <service>.<method>() to <address>`, for messages (made only when one is). */
  private where(): string {
    return this.invoker.where(this.method.name);
  }

  private settle(): void {
    this.done = true;
    if (this.wheelBucket !== undefined) this.invoker.disarm(this);
    if (this.onAbort !== undefined) this.invocation.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** A decoded Throwable as the declared error class it names (see `asDeclaredError`). */
function rebuild(error: Error, descriptor: MethodDescriptor | undefined): Error {
  return asDeclaredError(error, descriptor?.throws);
}
