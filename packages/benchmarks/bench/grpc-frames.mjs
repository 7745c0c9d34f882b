// gRPC Length-Prefixed-Message framing for the node:http2 floor of the streaming bench (client and server).

/** Frames one message: flag 0 and its 4-byte big-endian length, then the message, in one buffer. */
export function frame(message) {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** Splits the DATA chunks of one stream into messages, handing each (a Uint8Array) to `onMessage`. */
export class GrpcFrames {
  constructor(onMessage) {
    this.onMessage = onMessage;
    this.pending = undefined;
  }

  push(chunk) {
    let data = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    let offset = 0;
    while (data.length - offset >= 5) {
      const length = data.readUInt32BE(offset + 1);
      if (data.length - offset < 5 + length) break;
      this.onMessage(new Uint8Array(data.buffer, data.byteOffset + offset + 5, length));
      offset += 5 + length;
    }
    this.pending = offset === data.length ? undefined : data.subarray(offset);
  }
}
