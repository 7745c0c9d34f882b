import type net from 'node:net';

import {
  Invocation,
  Result,
  RpcError,
  RpcErrorCode,
  peerCertificateOfSocket,
  safeLog,
  setPeerCertificate,
  type AttachmentValue,
  type MethodDescriptor,
  type ObjectSerialization,
  type PeerCertificate,
  type TypeDescriptor,
} from '@weft/core/spi';

import { attachmentObject, readAttachments, ROUTING_ATTACHMENTS, writeExceptionBody, writeStringBody, writeValueBody } from '../frame/bodies.js';
import { FrameDecoder, TLS_RECORD, type FrameSink } from '../frame/frame-decoder.js';
import { FrameWriter } from '../frame/frame-writer.js';
import { encodeFrame, Flag, type Frame } from '../frame/header.js';
import { DubboStatus, failureMessage, supportsResponseAttachments } from '../frame/status.js';
import { DubboDefaults } from '../dubbo-keys.js';
import type { DubboExporter } from './dubbo-exporter.js';
import type { DubboServer } from './dubbo-server.js';

/** Longest event body Java accepts (`deserialization.event.size`). */
const MAX_EVENT_BYTES = 15;
const ECHO = '$echo';
const ECHO_DESCRIPTOR = 'Ljava/lang/Object;';

/** A request that cannot be decoded: answered with status 40 (BAD_REQUEST). */
class BadRequest extends Error {}

/** What the decoder read from a request body. */
interface DecodedRequest {
  readonly dubboVersion: string;
  readonly path: string;
  readonly version: string;
  readonly method: string;
  readonly descriptor: MethodDescriptor | undefined;
  readonly args: unknown[];
  readonly attachments: Map<string, AttachmentValue>;
}

/**
 * One accepted connection: frames in, calls dispatched through the exported invokers, responses out.
 *
 * @remarks Frames are answered as the table in the package README says (status 40 for undecodable requests, 70 for
 * unknown services and framework failures, 25 for oversized responses, nothing for one-way requests). Wrong magic or
 * a negative length closes the connection with a logged reason; the server keeps running.
 */
export class ServerConnection implements FrameSink {
  /** Last time something was read or written (idle detection). */
  lastActivity = Date.now();
  readonly remote: string;
  /** The verified client certificate (TLS with a trust collection), read once at accept; `undefined` otherwise. */
  readonly peerCertificate: PeerCertificate | undefined;
  private readonly decoder: FrameDecoder;
  private readonly writer: FrameWriter;
  /** The last request body version seen and whether it selects the attachment flags (one entry: peers send one). */
  private lastVersion: string | undefined = undefined;
  private lastVersionWithAttachments = false;

  constructor(
    readonly server: DubboServer,
    private readonly socket: net.Socket,
  ) {
    this.remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? 0}`;
    this.peerCertificate = peerCertificateOfSocket(socket);
    this.decoder = new FrameDecoder(server.options.payload, this);
    this.writer = new FrameWriter(socket);
    socket.on('data', (chunk: Buffer) => {
      this.lastActivity = Date.now();
      this.decoder.push(chunk);
    });
    socket.on('error', (error) => safeLog(server.logger, 'debug', `dubbo: connection from ${this.remote}: ${error.message}`));
  }

  /** Writes a frame (writes of one tick are sent together). */
  write(frame: Buffer): void {
    this.lastActivity = Date.now();
    this.writer.write(frame);
  }

  /** Writes a frame given by its header fields and body (see `FrameWriter.writeFrame`). */
  writeFrame(flag: number, status: number, idHigh: number, idLow: number, body: Uint8Array): void {
    this.lastActivity = Date.now();
    this.writer.writeFrame(flag, status, idHigh, idLow, body);
  }

  /** Whether a request of this body version gets the attachment flags 3–5 (cached for the last version seen). */
  withAttachments(version: string): boolean {
    if (version !== this.lastVersion) {
      this.lastVersion = version;
      this.lastVersionWithAttachments = supportsResponseAttachments(version);
    }
    return this.lastVersionWithAttachments;
  }

  /** Ends the connection after what was written. */
  end(): void {
    this.writer.flushNow();
    this.socket.end();
    const timer = setTimeout(() => this.socket.destroy(), 1000);
    timer.unref();
  }

  destroy(): void {
    this.socket.destroy();
  }

  frame(frame: Frame): void {
    const flag = frame.flag;
    // Responses (e.g. to a heartbeat a client never asked for) need nothing.
    if ((flag & Flag.REQUEST) === 0) return;
    const twoWay = (flag & Flag.TWO_WAY) !== 0;
    const id = flag & Flag.SERIALIZATION_MASK;
    const codec = this.server.codecs.byId(id);
    if (codec === undefined) {
      const why = `unknown serialization id ${id} (this provider reads: ${this.server.codecs.describe()})`;
      safeLog(this.server.logger, 'warn', `dubbo: request from ${this.remote} refused: ${why}.`);
      if (twoWay) this.respondStatus(frame, this.server.codec, DubboStatus.BAD_REQUEST, `Fail to decode request due to: ${why}`);
      return;
    }
    if ((flag & Flag.EVENT) !== 0) {
      this.event(frame, codec, twoWay);
      return;
    }
    this.request(frame, codec, twoWay);
  }

  oversized(header: Frame, length: number): void {
    const payload = this.server.options.payload;
    safeLog(this.server.logger, 'warn', `dubbo: frame from ${this.remote} refused before reading its body: ${length} bytes exceed the payload limit of ${payload} bytes (URL key "payload").`);
    const flag = header.flag;
    if ((flag & Flag.REQUEST) === 0 || (flag & Flag.TWO_WAY) === 0) return;
    const codec = this.server.codecs.byId(flag & Flag.SERIALIZATION_MASK) ?? this.server.codec;
    this.respondStatus(header, codec, DubboStatus.BAD_REQUEST, `Data length too large: ${length}, max payload: ${payload}, channel: ${this.remote}`);
  }

  corrupt(reason: string): void {
    const hint = this.server.tls === undefined && reason.includes(TLS_RECORD) ? ' (this port serves plaintext: its export has no ssl-enabled=true)' : '';
    safeLog(this.server.logger, 'warn', `dubbo: closing connection from ${this.remote}: ${reason}${hint}.`);
    this.socket.destroy();
  }

  private event(frame: Frame, codec: ObjectSerialization, twoWay: boolean): void {
    const codecs = this.server.codecs;
    if (codecs.isHeartbeat(codec, frame.body)) {
      if (twoWay) this.write(encodeFrame(Flag.EVENT | codec.dubboSerializationId, DubboStatus.OK, frame.idHigh, frame.idLow, codecs.nullBytes(codec)));
      return;
    }
    if (frame.body.length > MAX_EVENT_BYTES) {
      const why = `Event data too long, actual size ${frame.body.length}, threshold ${MAX_EVENT_BYTES}`;
      safeLog(this.server.logger, 'warn', `dubbo: event from ${this.remote} refused: ${why}.`);
      if (twoWay) this.respondStatus(frame, codec, DubboStatus.BAD_REQUEST, `Fail to decode request due to: ${why}`);
    }
    // Other events ("R"/"W" from a closing consumer) need no answer.
  }

  private request(frame: Frame, codec: ObjectSerialization, twoWay: boolean): void {
    let request: DecodedRequest;
    try {
      request = this.decode(frame.body, codec);
    } catch (error) {
      const why = error instanceof BadRequest ? error.message : describe(error);
      safeLog(this.server.logger, 'warn', `dubbo: undecodable request from ${this.remote}: ${why}`);
      if (twoWay) this.respondStatus(frame, codec, DubboStatus.BAD_REQUEST, `Fail to decode request due to: ${why}`);
      return;
    }
    const attachments = request.attachments;
    const path = stringOf(attachments.get('path')) ?? request.path;
    const version = stringOf(attachments.get('version')) ?? request.version;
    const group = stringOf(attachments.get('group')) || undefined;
    const exporter = this.server.find(group, path, version);
    if (exporter === undefined) {
      if (twoWay) {
        const key = `${group ? `${group}/` : ''}${path}:${version}:${this.server.port}`;
        this.respondStatus(
          frame,
          codec,
          DubboStatus.SERVICE_ERROR,
          `org.apache.dubbo.remoting.RemotingException: Not found exported service: ${key} in [${this.server.keys().join(', ')}], may be version or group mismatch`,
        );
      }
      return;
    }
    const invocation = Invocation.of(request.method, request.args, exporter.service);
    invocation.enableAbort();
    for (const [key, value] of attachments) if (!ROUTING_ATTACHMENTS.has(key)) invocation.setAttachment(key, value);
    invocation.setAttachment('remote.address', this.remote);
    setPeerCertificate(invocation, this.peerCertificate);
    const timeout = Number(attachments.get('timeout'));
    if (timeout > 0) invocation.deadline = Date.now() + timeout;
    const call = new ServerCall(this, exporter, frame, codec, twoWay, request);
    exporter.inflight.enter();
    this.server.inflight.enter();
    let answer: Result | Promise<Result>;
    try {
      answer = exporter.invoker.invoke(invocation);
    } catch (error) {
      call.failed(error);
      return;
    }
    if (answer instanceof Result) call.succeed(answer);
    else answer.then(call.onResult, call.onError);
  }

  /** Reads a request body: the head fields, the arguments as the matched method declares them, the attachments. */
  private decode(body: Buffer, codec: ObjectSerialization): DecodedRequest {
    const input = codec.createInput(body);
    const dubboVersion = input.readString() ?? '';
    const path = input.readString() ?? '';
    const version = input.readString() ?? '';
    const method = input.readString() ?? '';
    const descriptorText = input.readString() ?? '';
    const definition = this.server.definitionOf(path);
    if (definition === undefined) {
      throw new BadRequest(`java.io.IOException: Service ${path}:${version} not found, invocation rejected. (exported here: ${this.server.keys().join(', ') || 'none'})`);
    }
    const service = definition.service;
    const descriptor = service?.getMethod(method);
    let types: readonly (TypeDescriptor | undefined)[];
    if (descriptor === undefined && method === ECHO && descriptorText === ECHO_DESCRIPTOR) {
      types = [undefined];
    } else if (service !== undefined && descriptor === undefined) {
      throw new BadRequest(`java.lang.IllegalArgumentException: Service not found:${path}, ${method} (methods: ${service.methodNames.join(', ')})`);
    } else {
      const parts = this.server.descriptorParts(descriptorText);
      if (parts === undefined) throw new BadRequest(`malformed parameter descriptor "${descriptorText}" for ${path}.${method}()`);
      const declared = descriptor?.args;
      if (declared !== undefined && declared.length !== parts.length) {
        throw new BadRequest(
          `java.lang.IllegalArgumentException: Service not found:${path}, ${method}: the descriptor "${descriptorText}" has ${parts.length} parameter(s), ` +
            `the method declares ${declared.length}`,
        );
      }
      types = declared ?? parts.map(() => undefined);
    }
    const args = new Array<unknown>(types.length);
    for (let i = 0; i < types.length; i++) args[i] = input.readObject(types[i]);
    const attachments = input.hasMore() ? readAttachments(input.readObject()) : new Map<string, AttachmentValue>();
    return { dubboVersion, path, version, method, descriptor, args, attachments };
  }

  /** @internal Answers a frame with a non-OK status and a message. */
  respondStatus(frame: Frame, codec: ObjectSerialization, status: number, message: string): void {
    let body: Uint8Array;
    try {
      body = writeStringBody(codec, message);
    } catch {
      body = writeStringBody(codec, `status ${status}`);
    }
    this.writeFrame(codec.dubboSerializationId, status, frame.idHigh, frame.idLow, body);
  }
}

/** One request being answered. */
class ServerCall {
  private done = false;
  readonly onResult = (result: Result) => this.succeed(result);
  readonly onError = (error: unknown) => this.failed(error);

  constructor(
    private readonly connection: ServerConnection,
    private readonly exporter: DubboExporter,
    private readonly frame: Frame,
    private readonly codec: ObjectSerialization,
    private readonly twoWay: boolean,
    private readonly request: DecodedRequest,
  ) {}

  succeed(result: Result): void {
    if (!this.finish() || !this.twoWay) return;
    const exception = result.hasException() ? result.exception : undefined;
    if (exception instanceof RpcError && !exception.isBiz) {
      this.failed(exception, true);
      return;
    }
    const attachments = this.connection.withAttachments(this.request.dubboVersion) ? responseAttachments(result) : undefined;
    let body: Uint8Array;
    try {
      if (result.hasException()) body = writeExceptionBody(this.codec, businessError(exception), attachments);
      else body = writeValueBody(this.codec, result.value, this.request.descriptor?.returns ?? undefined, attachments);
    } catch (error) {
      this.connection.respondStatus(this.frame, this.codec, DubboStatus.BAD_RESPONSE, `Failed to send response: ${this.where()}, cause: ${describe(error)}`);
      return;
    }
    const payload = this.connection.server.options.payload;
    if (payload > 0 && body.length > payload) {
      this.connection.respondStatus(
        this.frame,
        this.codec,
        DubboStatus.SERIALIZATION_ERROR,
        `Data length too large: ${body.length}, max payload: ${payload}, channel: ${this.connection.remote} (response of ${this.where()})`,
      );
      return;
    }
    this.connection.writeFrame(this.codec.dubboSerializationId, DubboStatus.OK, this.frame.idHigh, this.frame.idLow, body);
  }

  /** A framework failure (a thrown or rejected `RpcError`, or one in the result): status 70 with Weft's code. */
  failed(error: unknown, finished = false): void {
    if (!finished && !this.finish()) return;
    if (!this.twoWay) return;
    const rpc = RpcError.from(error);
    const status = rpc.code === RpcErrorCode.METHOD_NOT_FOUND ? DubboStatus.BAD_REQUEST : DubboStatus.SERVICE_ERROR;
    this.connection.respondStatus(this.frame, this.codec, status, failureMessage(rpc));
  }

  /** Leaves the in-flight counts once; false when already done. */
  private finish(): boolean {
    if (this.done) return false;
    this.done = true;
    this.exporter.inflight.exit();
    this.connection.server.inflight.exit();
    return true;
  }

  private where(): string {
    return `${this.exporter.key}.${this.request.method}()`;
  }
}

/** Response attachments: Java's `dubbo=2.0.2` plus the result's. */
function responseAttachments(result: Result): Record<string, AttachmentValue> {
  const out: Record<string, AttachmentValue> = { dubbo: DubboDefaults.DUBBO_VERSION };
  return result.hasAttachments() ? attachmentObject(result.getAttachments(), out) : out;
}

/** The error written as the Throwable of a business failure: a `biz` RpcError's cause, else the value itself. */
function businessError(exception: unknown): Error {
  if (exception instanceof RpcError && exception.isBiz && exception.cause instanceof Error) return exception.cause;
  return exception instanceof Error ? exception : new Error(String(exception));
}

function stringOf(value: AttachmentValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
