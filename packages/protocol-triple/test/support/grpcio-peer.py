#!/usr/bin/env python3
"""A Python grpcio (gRPC C-core) peer of weft.interop.v1.Interop for tri's interop tests.

  grpcio-peer.py client PORT   calls a Weft provider on 127.0.0.1:PORT, prints one JSON object with what it saw
  grpcio-peer.py server        serves Interop on 127.0.0.1 (a free port), prints "PORT <n>", runs until stdin closes

Messages are encoded by hand (the few fields of interop.proto used here), so only grpcio itself is needed.
"""
import json
import sys
import threading
import time
from concurrent import futures

import grpc

SERVICE = 'weft.interop.v1.Interop'


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, value):
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    data = value.encode('utf-8') if isinstance(value, str) else value
    return varint((number << 3) | 2) + varint(len(data)) + data


def parse(data):
    """Fields of a message: {number: [values]} (varints as int, length-delimited as bytes)."""
    fields = {}
    i = 0
    while i < len(data):
        key, i = read_varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(data, i)
        elif wire == 2:
            length, i = read_varint(data, i)
            value, i = data[i:i + length], i + length
        else:
            raise ValueError('unexpected wire type %d' % wire)
        fields.setdefault(number, []).append(value)
    return fields


def read_varint(data, i):
    shift = result = 0
    while True:
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, i


def first(fields, number, default):
    return fields.get(number, [default])[0]


def identity(x):
    return x


def client(port):
    seen = {}
    with grpc.insecure_channel('127.0.0.1:%d' % port) as channel:
        echo = channel.unary_unary('/%s/Echo' % SERVICE, request_serializer=identity, response_deserializer=identity)
        fail = channel.unary_unary('/%s/Fail' % SERVICE, request_serializer=identity, response_deserializer=identity)
        sleep = channel.unary_unary('/%s/Sleep' % SERVICE, request_serializer=identity, response_deserializer=identity)
        reply, call = echo.with_call(
            field(1, 'héllo') + field(2, b'\x01\x02\x03') + field(3, 9007199254740993),
            metadata=(('x-trace', 'abc-123'), ('x-raw-bin', b'\x09\x08\x07')),
            timeout=5,
        )
        fields = parse(reply)
        trailing = {k: (v.hex() if isinstance(v, bytes) else v) for k, v in call.trailing_metadata()}
        seen['echo'] = {
            'text': first(fields, 1, b'').decode('utf-8'),
            'payload': first(fields, 2, b'').hex(),
            'big': str(first(fields, 3, 0)),
            'trailing': trailing,
        }
        try:
            sleep(field(1, 800), timeout=0.15)
            seen['deadline'] = 'OK'
        except grpc.RpcError as error:
            seen['deadline'] = error.code().name
        statuses = {}
        for code in range(1, 17):
            try:
                fail(field(1, code) + field(2, 'failed with %d: 50%% ✓ a+b' % code), timeout=5)
                statuses[code] = ['OK', '']
            except grpc.RpcError as error:
                statuses[code] = [error.code().value[0], error.details()]
        seen['statuses'] = statuses
    print(json.dumps(seen))


class Interop(grpc.GenericRpcHandler):
    def service(self, details):
        method = details.method
        if method == '/%s/Echo' % SERVICE:
            return grpc.unary_unary_rpc_method_handler(self.echo, request_deserializer=identity, response_serializer=identity)
        if method == '/%s/Fail' % SERVICE:
            return grpc.unary_unary_rpc_method_handler(self.fail, request_deserializer=identity, response_serializer=identity)
        if method == '/%s/Sleep' % SERVICE:
            return grpc.unary_unary_rpc_method_handler(self.sleep, request_deserializer=identity, response_serializer=identity)
        return None

    def echo(self, request, context):
        fields = parse(request)
        metadata = dict(context.invocation_metadata())
        reply = field(1, first(fields, 1, b''))
        if 2 in fields:
            reply += field(2, first(fields, 2, b''))
        if 3 in fields:
            reply += field(3, first(fields, 3, 0))
        for name in fields.get(4, []):
            key = name.decode('utf-8')
            value = metadata.get(key, '')
            value = 'bytes:' + value.hex() if isinstance(value, bytes) else value
            reply += field(4, field(1, key) + field(2, value))
        context.set_trailing_metadata((('served-by', 'grpcio'), ('blob-bin', b'\x04\x05\x06')))
        return reply

    def fail(self, request, context):
        fields = parse(request)
        number = first(fields, 1, 2)
        code = next(s for s in grpc.StatusCode if s.value[0] == number)
        context.abort(code, first(fields, 2, b'').decode('utf-8'))

    def sleep(self, request, context):
        ms = first(parse(request), 1, 0)
        remaining = context.time_remaining()
        context.set_trailing_metadata((('remaining-ms', str(int((remaining or 0) * 1000))),))
        time.sleep(ms / 1000)
        return field(1, ms)


def server():
    srv = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    srv.add_generic_rpc_handlers((Interop(),))
    port = srv.add_insecure_port('127.0.0.1:0')
    srv.start()
    print('PORT %d' % port, flush=True)
    stopped = threading.Event()

    def wait_stdin():
        sys.stdin.read()
        stopped.set()

    threading.Thread(target=wait_stdin, daemon=True).start()
    stopped.wait()
    srv.stop(0)


if __name__ == '__main__':
    if sys.argv[1] == 'client':
        client(int(sys.argv[2]))
    else:
        server()
