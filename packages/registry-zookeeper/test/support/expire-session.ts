// Expires a ZooKeeper session on purpose, as a partition longer than the session timeout would: a raw connection
// resumes the session (the server drops the owner's connection) and closes it in the same write, before the owner
// can reconnect and take the session back. The owner then reconnects and learns that its session has expired.
import { connect } from 'node:net';

const CLOSE_SESSION = -11;

/** Resumes `session` on 127.0.0.1:`port` and closes it; resolves when the server has closed the connection. */
export function expireSession(port: number, session: { readonly id: Buffer; readonly password: Buffer }, timeoutMs = 5000): Promise<void> {
  // ConnectRequest: protocolVersion, lastZxidSeen, timeOut, sessionId, passwd (length-prefixed), readOnly.
  const connectBody = Buffer.alloc(4 + 8 + 4 + 8 + 4 + session.password.length + 1);
  let at = 0;
  at = connectBody.writeInt32BE(0, at);
  connectBody.fill(0, at, at + 8);
  at += 8;
  at = connectBody.writeInt32BE(30_000, at);
  at += session.id.copy(connectBody, at);
  at = connectBody.writeInt32BE(session.password.length, at);
  at += session.password.copy(connectBody, at);
  connectBody.writeUInt8(0, at);
  // RequestHeader of closeSession: xid, type.
  const closeBody = Buffer.alloc(8);
  closeBody.writeInt32BE(1, 0);
  closeBody.writeInt32BE(CLOSE_SESSION, 4);
  const packet = Buffer.concat([lengthPrefixed(connectBody), lengthPrefixed(closeBody)]);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`expireSession: the server did not close the session within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(packet));
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function lengthPrefixed(body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length, 0);
  return Buffer.concat([length, body]);
}
