"""The protobuf wire format by hand, for the Python peers (Debian's python3-grpcio has no generated stubs here)."""


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
