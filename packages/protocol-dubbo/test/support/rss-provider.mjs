// A dubbo:// provider in its own process, for RSS measurements: node rss-provider.mjs <app root> <port> [hessian].
// With "hessian" it uses the app's @weft/serialization-hessian2 and exports `echo(Object)` too; else a mini codec.
// Prints "port <n>" and "rss <bytes>" once serving, and "rss-after <bytes>" for every "measure" line on stdin.
import { createInterface } from 'node:readline';

import { defineService, ObjectInput, ObjectOutput, ObjectSerialization, Serialization, WeftApplication } from '@weft/core';

/** Strings, small ints and null: all a sayHello call needs (the hostile input never gets this far). */
class MiniOutput extends ObjectOutput {
  bytes = [];
  writeInt(v) {
    this.bytes.push(0x90 + v);
  }
  writeString(v) {
    if (v === null) this.bytes.push(0x4e);
    else this.bytes.push(v.length, ...Buffer.from(v));
  }
  writeObject(v) {
    if (typeof v === 'string') this.writeString(v);
    else if (v !== null && typeof v === 'object') {
      this.bytes.push(0x48);
      for (const [k, x] of Object.entries(v)) {
        this.writeString(k);
        this.writeObject(x);
      }
      this.bytes.push(0x5a);
    } else this.bytes.push(0x4e);
  }
  writeThrowable(e) {
    this.writeObject({ message: e.message });
  }
  finish() {
    return Uint8Array.from(this.bytes);
  }
}
class MiniInput extends ObjectInput {
  at = 0;
  constructor(bytes) {
    super();
    this.bytes = bytes;
  }
  readInt() {
    return this.bytes[this.at++] - 0x90;
  }
  readString() {
    const v = this.readObject();
    return typeof v === 'string' ? v : null;
  }
  readObject() {
    if (this.at >= this.bytes.length) throw new Error('end of body');
    const tag = this.bytes[this.at++];
    if (tag < 0x20) {
      const s = Buffer.from(this.bytes.subarray(this.at, this.at + tag)).toString();
      this.at += tag;
      return s;
    }
    if (tag === 0x4e) return null;
    if (tag === 0x48) {
      const map = {};
      while (this.bytes[this.at] !== 0x5a) {
        const k = this.readObject();
        map[k] = this.readObject();
      }
      this.at++;
      return map;
    }
    throw new Error(`unknown tag ${tag}`);
  }
  readThrowable() {
    return new Error(String(this.readObject()));
  }
  hasMore() {
    return this.at < this.bytes.length;
  }
}
class MiniHessian extends ObjectSerialization {
  contentSubtype = 'hessian2';
  dubboSerializationId = 2;
  createOutput() {
    return new MiniOutput();
  }
  createInput(bytes) {
    return new MiniInput(bytes);
  }
  serialize(v) {
    const o = new MiniOutput();
    o.writeObject(v);
    return o.finish();
  }
  deserialize(b) {
    return new MiniInput(b).readObject();
  }
  parameterDescriptor() {
    return 'Ljava/lang/String;';
  }
  javaTypeNames() {
    return ['java.lang.String'];
  }
}

const [root, portText, codec] = process.argv.slice(2);
const port = Number(portText);
const app = await WeftApplication.start({ root, name: 'rss-provider' });
if (codec !== 'hessian') app.model.getExtensionLoader(Serialization).addExtension('hessian2', MiniHessian);
const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String }, echo: { args: [Object], returns: Object } });
await app.export(Greeter, { sayHello: (name) => `hello ${name}`, echo: (value) => value }, { protocol: 'dubbo', port });
const rss = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss;
};
process.stdout.write(`port ${port}\nrss ${rss()}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'measure') process.stdout.write(`rss-after ${rss()}\n`);
});
