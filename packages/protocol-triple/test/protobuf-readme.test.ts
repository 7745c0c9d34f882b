// @weft/serialization-protobuf's README cannot rot: its usage snippet and its curl example run here, over tri.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { RpcError } from '@weft/core';
import { Code, defineProtoService, grpcError } from '@weft/serialization-protobuf';
import { freePort, sourceRegion } from '@weft/test-utils';

import { Greeter as GreeterDesc } from '../../serialization-protobuf/example/gen/weft/example/v1/greeter_pb.js';
import { BASE_PACKAGES, Harness } from './support/harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(here, '..', '..', 'serialization-protobuf', 'README.md'), 'utf8');

const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
afterEach(async () => {
  vi.restoreAllMocks();
  await harness.close();
});

describe('@weft/serialization-protobuf README', () => {
  it('usage snippet runs: a consumer application calls a protobuf service over tri', async () => {
    const provider = await harness.start('greeter-provider');
    const consumer = await harness.start('greeter-consumer');
    const port = await freePort();
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // #region usage
    const Greeter = defineProtoService(GreeterDesc);
    await provider.export(
      Greeter,
      {
        sayHello: (request) => {
          if (request.name === '') throw grpcError(Code.INVALID_ARGUMENT, 'name is required');
          return { message: `Hello, ${request.name}!` };
        },
        echo: (message) => message,
      },
      { protocol: 'tri', port },
    );
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}` });
    console.log((await greeter.sayHello({ name: 'ann' })).message); // Hello, ann!
    try {
      await greeter.sayHello({ name: '' });
    } catch (error) {
      if (error instanceof RpcError) console.log(error.grpcStatus, error.message); // 3 name is required
    }
    // #endregion usage

    expect(log.mock.calls).toEqual([['Hello, ann!'], [3, 'name is required']]);

    const response = await fetch(`http://127.0.0.1:${port}/weft.example.v1.Greeter/SayHello`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"ann"}',
    });
    expect(await response.text()).toBe('{"message":"Hello, ann!"}');
    expect(readme).toContain(`-d '{"name":"ann"}' http://127.0.0.1:50051/weft.example.v1.Greeter/SayHello`);
    expect(readme).toContain('answers `{"message":"Hello, ann!"}`');
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + sourceRegion(thisFile, 'usage') + '\n```');
  });

  it('shows the example buf.gen.yaml it documents', () => {
    const gen = readFileSync(join(here, '..', '..', 'serialization-protobuf', 'example', 'buf.gen.yaml'), 'utf8');
    for (const line of ['version: v2', '  - local: protoc-gen-es', '    out: gen', '      - target=ts', '      - import_extension=js']) {
      expect(gen).toContain(line);
      expect(readme).toContain(line);
    }
  });
});
