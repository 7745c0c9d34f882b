// A provider in its own process, for crash tests: `node provider-process.mjs '<json>'` with
// { root, registry, name, label, port[, parameters] }. Exports the demo service over `loop`, registers it, prints "READY", and
// runs until killed (SIGKILL in the tests: no unregister, the session simply stops — a crash).
import { defineService, Protocol, WeftApplication } from '@weft/core';

import { LoopProtocol } from './loop-protocol.mjs';

const { root, registry, name, label, port, parameters } = JSON.parse(process.argv[2] ?? '{}');
const DemoService = defineService('com.alibaba.dubbo.demo.DemoService', {
  sayHello: { args: [String], returns: String },
  echo: { args: [String], returns: String },
});

const app = await WeftApplication.start({ root, name, registry });
app.model.getExtensionLoader(Protocol).addExtension('loop', LoopProtocol);
await app.export(
  DemoService,
  { sayHello: (who) => `hello ${who} from ${label}`, echo: (text) => `${label}:${text}` },
  { protocol: 'loop', host: '127.0.0.1', port, ...(parameters ? { parameters } : {}) },
);
process.stdout.write('READY\n');
process.on('SIGTERM', () => {
  void app.shutdown({ timeout: 1000 }).then(() => process.exit(0));
});
setInterval(() => undefined, 60_000);
