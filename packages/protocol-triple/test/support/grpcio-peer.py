#!/usr/bin/env python3
"""A Python grpcio (gRPC C-core) peer of weft.interop.v1.Interop for tri's interop tests.

  grpcio-peer.py client PORT         calls a Weft provider on 127.0.0.1:PORT, prints one JSON object with what it saw
  grpcio-peer.py stream-client PORT  the same for weft.interop.v1.Streamer (server, client and bidi streams)
  grpcio-peer.py server              serves Interop and Streamer on 127.0.0.1 (a free port), prints "PORT <n>", runs
                                     until stdin closes

Messages are encoded by hand (the few fields of interop.proto used here), so only grpcio itself is needed.
"""
import json
import sys
import threading
import time
from concurrent import futures

import grpc

from protowire import field, parse

SERVICE = 'weft.interop.v1.Interop'
STREAMER = 'weft.interop.v1.Streamer'


def first(fields, number, default):
    return fields.get(number, [default])[0]


def identity(x):
    return x


LIMIT = 8 << 20
CHANNEL_OPTIONS = (('grpc.max_receive_message_length', 16 << 20), ('grpc.max_send_message_length', 16 << 20))


def status_details(error):
    """The google.rpc.Status of grpc-status-details-bin (code, message), or None."""
    for key, value in error.trailing_metadata() or ():
        if key == 'grpc-status-details-bin':
            fields = parse(value)
            return [first(fields, 1, 0), first(fields, 2, b'').decode('utf-8')]
    return None


def client(port):
    seen = {}
    with grpc.insecure_channel('127.0.0.1:%d' % port, options=CHANNEL_OPTIONS) as channel:
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
                statuses[code] = [error.code().value[0], error.details(), status_details(error)]
        seen['statuses'] = statuses
        near, _ = echo.with_call(field(2, b'\x07' * (LIMIT - 64)), timeout=10)
        seen['near'] = len(first(parse(near), 2, b''))
        try:
            echo(field(2, b'\x07' * (LIMIT + 1)), timeout=10)
            seen['over'] = ['OK', '']
        except grpc.RpcError as error:
            seen['over'] = [error.code().name, error.details()]
    print(json.dumps(seen))


def replies(messages):
    return [[first(parse(m), 1, b'').decode('utf-8'), first(parse(m), 2, 0)] for m in messages]


def stream_client(port):
    seen = {}
    with grpc.insecure_channel('127.0.0.1:%d' % port, options=CHANNEL_OPTIONS) as channel:
        lots = channel.unary_stream('/%s/LotsOfReplies' % STREAMER, request_serializer=identity, response_deserializer=identity)
        record = channel.stream_unary('/%s/Record' % STREAMER, request_serializer=identity, response_deserializer=identity)
        chat = channel.stream_stream('/%s/Chat' % STREAMER, request_serializer=identity, response_deserializer=identity)
        call = lots(field(1, 'py') + field(2, 3), timeout=5, metadata=(('x-trace', 'py-1'), ('x-raw-bin', b'\x09\x08\x07\x06')))
        seen['server'] = replies(list(call))
        seen['server_trailing'] = {k: (v.hex() if isinstance(v, bytes) else v) for k, v in call.trailing_metadata()}
        summary = parse(record(iter([field(1, t) for t in ('a', 'b', 'c')]), timeout=5))
        seen['client'] = [first(summary, 1, 0), first(summary, 2, b'').decode('utf-8')]
        seen['bidi'] = replies(list(chat(iter([field(1, t) for t in ('one', 'two')]), timeout=5)))
        got = []
        try:
            for message in lots(field(1, 'x') + field(2, 10) + field(4, 2) + field(5, 9), timeout=5):
                got.append(message)
            seen['failure'] = [len(got), 'OK', '']
        except grpc.RpcError as error:
            seen['failure'] = [len(got), error.code().name, error.details()]
        got = []
        try:
            for message in lots(field(1, 'x') + field(2, 1000) + field(6, 50), timeout=0.4):
                got.append(message)
            seen['deadline'] = [len(got), 'OK']
        except grpc.RpcError as error:
            seen['deadline'] = [len(got), error.code().name]
        call = lots(field(1, 'x') + field(2, 1000) + field(6, 20), timeout=5)
        next(call)
        call.cancel()
        try:
            for _ in call:
                pass
            seen['cancel'] = 'OK'
        except grpc.RpcError as error:
            seen['cancel'] = error.code().name
    print(json.dumps(seen))


def report(event):
    """Tells the test what the server saw (one line on stdout)."""
    print(event, flush=True)


class Streamer(grpc.GenericRpcHandler):
    def service(self, details):
        method = details.method
        if method == '/%s/LotsOfReplies' % STREAMER:
            return grpc.unary_stream_rpc_method_handler(self.lots, request_deserializer=identity, response_serializer=identity)
        if method == '/%s/Record' % STREAMER:
            return grpc.stream_unary_rpc_method_handler(self.record, request_deserializer=identity, response_serializer=identity)
        if method == '/%s/Chat' % STREAMER:
            return grpc.stream_stream_rpc_method_handler(self.chat, request_deserializer=identity, response_serializer=identity)
        return None

    def lots(self, request, context):
        fields = parse(request)
        text = first(fields, 1, b'').decode('utf-8')
        fail_after = first(fields, 4, 0)
        delay = first(fields, 6, 0) / 1000
        metadata = dict(context.invocation_metadata())
        raw = metadata.get('x-raw-bin')
        if raw is not None:
            context.set_trailing_metadata((('served-by', 'grpcio'), ('seen-raw', raw.hex()), ('blob-bin', b'\x04\x05\x06\x07')))
        ended = threading.Event()
        finished = threading.Event()

        def on_end():
            # The RPC terminated before the replies were all produced: the client cancelled or its deadline passed.
            ended.set()
            if not finished.is_set():
                report('CANCELLED LotsOfReplies')

        context.add_callback(on_end)
        for i in range(first(fields, 2, 0)):
            if fail_after and i == fail_after:
                finished.set()
                code = next(s for s in grpc.StatusCode if s.value[0] == first(fields, 5, 2))
                context.abort(code, 'failed after %d replies' % i)
            if ended.is_set():
                return
            yield field(1, '%s #%d' % (text, i)) + field(2, i)
            if delay:
                time.sleep(delay)
        finished.set()

    def record(self, requests, context):
        texts = [first(parse(r), 1, b'').decode('utf-8') for r in requests]
        return field(1, len(texts)) + field(2, ','.join(texts))

    def chat(self, requests, context):
        for request in requests:
            yield field(1, first(parse(request), 1, b'').decode('utf-8').upper())


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
        end = time.time() + ms / 1000
        while time.time() < end:
            if not context.is_active():
                report('CANCELLED Sleep')
                return field(1, 0)
            time.sleep(0.01)
        return field(1, ms)


def server():
    srv = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=CHANNEL_OPTIONS)
    srv.add_generic_rpc_handlers((Interop(), Streamer()))
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
    elif sys.argv[1] == 'stream-client':
        stream_client(int(sys.argv[2]))
    else:
        server()
