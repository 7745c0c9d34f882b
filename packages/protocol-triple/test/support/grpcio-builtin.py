#!/usr/bin/env python3
"""A Python grpcio (gRPC C-core) client of tri's built-in services, for builtin-grpcio.integration.test.ts.

  grpcio-builtin.py health PORT   grpc.health.v1.Health/Check of "", a service and an unknown one; Watch's first status
  grpcio-builtin.py grpcurl PORT  what `grpcurl list`, `describe` and an invoke do, over grpc.reflection.v1: list the
                                  services, fetch the file of one, build its messages from the reflected descriptors
                                  (python3-protobuf's descriptor_pool) and call it

Prints one JSON object. Health messages are encoded by hand (one string, one enum field); reflection's replies are
decoded by hand too, the FileDescriptorProtos by python3-protobuf (a dependency of Debian's python3-grpcio).
"""
import json
import sys

import grpc

from protowire import field, parse


STATUS = {0: 'UNKNOWN', 1: 'SERVING', 2: 'NOT_SERVING', 3: 'SERVICE_UNKNOWN'}
IDENTITY = dict(request_serializer=lambda b: b, response_deserializer=lambda b: b)


def status_of(reply):
    return STATUS[parse(reply).get(1, [0])[0]]


def health(port):
    out = {}
    with grpc.insecure_channel('127.0.0.1:%d' % port) as channel:
        check = channel.unary_unary('/grpc.health.v1.Health/Check', **IDENTITY)
        for service in ['', 'weft.catalog.v1.Catalog', 'org.acme.Greeter']:
            out[service or '(server)'] = status_of(check(field(1, service), timeout=5))
        try:
            check(field(1, 'org.acme.Nope'), timeout=5)
            out['unknown'] = 'OK'
        except grpc.RpcError as error:
            out['unknown'] = [error.code().name, error.details()]
        watch = channel.unary_stream('/grpc.health.v1.Health/Watch', **IDENTITY)
        call = watch(field(1, 'weft.catalog.v1.Catalog'), timeout=5)
        out['watch'] = status_of(next(call))
        call.cancel()
    return out


def grpcurl(port):
    from google.protobuf import descriptor_pb2, descriptor_pool
    try:
        from google.protobuf.message_factory import GetMessageClass
    except ImportError:  # python3-protobuf before 4.22
        from google.protobuf import message_factory
        factory = message_factory.MessageFactory()
        GetMessageClass = factory.GetPrototype
    out = {}
    with grpc.insecure_channel('127.0.0.1:%d' % port) as channel:
        info = channel.stream_stream('/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', **IDENTITY)
        requests = [field(1, 'localhost') + field(7, ''), field(1, 'localhost') + field(4, 'weft.catalog.v1.Catalog')]
        replies = [parse(r) for r in info(iter(requests), timeout=5)]
        # list_services_response (6) → repeated ServiceResponse (1) → name (1)
        listed = parse(replies[0][6][0]).get(1, [])
        out['list'] = [parse(s)[1][0].decode() for s in listed]
        # file_descriptor_response (4) → repeated bytes (1)
        files = [descriptor_pb2.FileDescriptorProto.FromString(b) for b in parse(replies[1][4][0]).get(1, [])]
        out['files'] = [f.name for f in files]
        pool = descriptor_pool.DescriptorPool()
        added = set()
        by_name = {f.name: f for f in files}

        def add(f):
            if f.name in added:
                return
            for dependency in f.dependency:
                add(by_name[dependency])
            pool.Add(f)
            added.add(f.name)
        for f in files:
            add(f)
        service = pool.FindServiceByName('weft.catalog.v1.Catalog')
        out['methods'] = [[m.name, m.input_type.full_name, m.output_type.full_name] for m in service.methods]
        method = service.methods_by_name['GetItem']
        Request = GetMessageClass(method.input_type)
        Reply = GetMessageClass(method.output_type)
        call = channel.unary_unary('/weft.catalog.v1.Catalog/GetItem', request_serializer=lambda m: m.SerializeToString(),
                                   response_deserializer=Reply.FromString)
        reply = call(Request(name='dune'), timeout=5)
        out['reply'] = {'name': reply.name, 'kind': method.output_type.fields_by_name['kind'].enum_type.values_by_number[reply.kind].name}
    return out


if __name__ == '__main__':
    mode, port = sys.argv[1], int(sys.argv[2])
    print(json.dumps(health(port) if mode == 'health' else grpcurl(port)))
