// A test-only ObjectSerialization: a small subset of Hessian 2 (null, booleans, compact and 32-bit ints, doubles,
// short strings, untyped maps and lists), enough to check the dubbo:// frame and protocol layers byte for byte until
// @weft/serialization-hessian2 is merged. Errors travel as a map with a "$throwable" key.
import { ObjectInput, ObjectOutput, ObjectSerialization, RpcError, type TypeDescriptor } from '@weft/core';

class FakeOutput extends ObjectOutput {
  private readonly bytes: number[] = [];

  writeInt(value: number): void {
    if (value >= -16 && value <= 47) this.bytes.push(0x90 + value);
    else {
      this.bytes.push(0x49, (value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
    }
  }

  writeString(value: string | null): void {
    if (value === null) {
      this.bytes.push(0x4e);
      return;
    }
    const utf8 = Buffer.from(value, 'utf8');
    const length = value.length;
    if (length < 32) this.bytes.push(length);
    else if (length < 1024) this.bytes.push(0x30 + (length >> 8), length & 0xff);
    else this.bytes.push(0x53, length >> 8, length & 0xff);
    for (const b of utf8) this.bytes.push(b);
  }

  writeObject(value: unknown, type?: TypeDescriptor): void {
    if (value === null || value === undefined) this.bytes.push(0x4e);
    else if (value === true) this.bytes.push(0x54);
    else if (value === false) this.bytes.push(0x46);
    else if (typeof value === 'number') {
      if (Number.isInteger(value) && Math.abs(value) < 2 ** 31) this.writeInt(value);
      else {
        const b = Buffer.alloc(9);
        b[0] = 0x44;
        b.writeDoubleBE(value, 1);
        for (const x of b) this.bytes.push(x);
      }
    } else if (typeof value === 'string') this.writeString(value);
    else if (value instanceof Error) this.writeThrowable(value);
    else if (Array.isArray(value)) {
      this.bytes.push(0x57);
      for (const item of value) this.writeObject(item);
      this.bytes.push(0x5a);
    } else if (typeof value === 'object') {
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function' && !(value instanceof Map)) throw new RpcError('serialization', 'the fake codec writes no dates');
      this.bytes.push(0x48);
      const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
      for (const [k, v] of entries) {
        this.writeObject(k);
        this.writeObject(v);
      }
      this.bytes.push(0x5a);
    } else throw new RpcError('serialization', `the fake codec cannot write a ${typeof value}`);
  }

  writeThrowable(error: Error): void {
    this.writeObject({ $throwable: error.name === 'Error' ? 'java.lang.RuntimeException' : error.name, message: error.message, ...ownFields(error) });
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

function ownFields(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(error)) {
    const v = (error as unknown as Record<string, unknown>)[key];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[key] = v;
  }
  return out;
}

class FakeInput extends ObjectInput {
  private at = 0;

  constructor(private readonly bytes: Uint8Array) {
    super();
  }

  readInt(): number {
    const v = this.readObject();
    if (typeof v !== 'number') throw new RpcError('serialization', `expected an int at offset ${this.at}`);
    return v;
  }

  readString(): string | null {
    const v = this.readObject();
    if (v !== null && typeof v !== 'string') throw new RpcError('serialization', `expected a string at offset ${this.at}`);
    return v;
  }

  readObject(type?: TypeDescriptor): unknown {
    if (this.at >= this.bytes.length) throw new RpcError('serialization', `end of body at offset ${this.at}`);
    const tag = this.bytes[this.at++] as number;
    if (tag < 0x20) return this.utf8(tag);
    if (tag >= 0x30 && tag <= 0x33) return this.utf8(((tag - 0x30) << 8) | this.byte());
    if (tag === 0x53) return this.utf8((this.byte() << 8) | this.byte());
    if (tag >= 0x80 && tag <= 0xbf) return tag - 0x90;
    switch (tag) {
      case 0x4e:
        return null;
      case 0x54:
        return true;
      case 0x46:
        return false;
      case 0x49: {
        const v = Buffer.from(this.take(4)).readInt32BE(0);
        return v;
      }
      case 0x44:
        return Buffer.from(this.take(8)).readDoubleBE(0);
      case 0x57: {
        const list: unknown[] = [];
        while (this.peek() !== 0x5a) list.push(this.readObject());
        this.at++;
        return list;
      }
      case 0x48: {
        const map: Record<string, unknown> = {};
        while (this.peek() !== 0x5a) {
          const k = this.readObject();
          const v = this.readObject();
          if (typeof k === 'string' && k !== '__proto__') map[k] = v;
        }
        this.at++;
        if (typeof map['$throwable'] === 'string') {
          const error = new Error(String(map['message'] ?? ''));
          error.name = map['$throwable'];
          for (const [k, v] of Object.entries(map)) if (k !== '$throwable' && k !== 'message') (error as unknown as Record<string, unknown>)[k] = v;
          return error;
        }
        return map;
      }
      default:
        throw new RpcError('serialization', `unknown tag 0x${tag.toString(16)} at offset ${this.at - 1}`);
    }
  }

  readThrowable(): Error {
    const v = this.readObject();
    if (!(v instanceof Error)) throw new RpcError('serialization', 'expected a Throwable');
    return v;
  }

  hasMore(): boolean {
    return this.at < this.bytes.length;
  }

  private byte(): number {
    if (this.at >= this.bytes.length) throw new RpcError('serialization', `end of body at offset ${this.at}`);
    return this.bytes[this.at++] as number;
  }

  private peek(): number {
    if (this.at >= this.bytes.length) throw new RpcError('serialization', `end of body at offset ${this.at}`);
    return this.bytes[this.at] as number;
  }

  private take(n: number): Uint8Array {
    if (this.at + n > this.bytes.length) throw new RpcError('serialization', `end of body at offset ${this.at}`);
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  private utf8(length: number): string {
    // ASCII-only in these tests: one byte per UTF-16 unit.
    return Buffer.from(this.take(length)).toString('utf8');
  }
}

/** The test codec, registered as `hessian2` (id 2) by the tests that need one. */
export class FakeHessian extends ObjectSerialization {
  readonly contentSubtype = 'hessian2';
  readonly dubboSerializationId = 2;

  createOutput(): ObjectOutput {
    return new FakeOutput();
  }

  createInput(bytes: Uint8Array): ObjectInput {
    return new FakeInput(bytes);
  }

  serialize(value: unknown): Uint8Array {
    const out = new FakeOutput();
    out.writeObject(value);
    return out.finish();
  }

  deserialize(bytes: Uint8Array): unknown {
    return new FakeInput(bytes).readObject();
  }

  parameterDescriptor(types: readonly TypeDescriptor[]): string {
    return types.map((t) => (t === String ? 'Ljava/lang/String;' : t === Number ? 'I' : t === Boolean ? 'Z' : Array.isArray(t) ? 'Ljava/util/List;' : 'Ljava/lang/Object;')).join('');
  }

  javaTypeNames(types: readonly TypeDescriptor[]): string[] {
    return types.map((t) => (t === String ? 'java.lang.String' : t === Number ? 'int' : 'java.lang.Object'));
  }
}
