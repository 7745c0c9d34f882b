// tri's built-in health and reflection services against Python's grpcio (gRPC's C core, a second, independent
// stack): Health/Check and Watch, and a grpcurl-style list → describe → invoke over reflection v1, the invoked
// messages built from the reflected FileDescriptorProtos by python3-protobuf. grpcio comes from Debian's
// python3-grpcio (scripts/install-grpcio.sh, run by `npm test`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { defineProtoService } from '@weft/serialization-protobuf';
import { freePort } from '@weft/test-utils';

import { Catalog as CatalogDesc } from './gen/weft/catalog/v1/catalog_pb.js';
import { BASE_PACKAGES, Greeter, greeterImpl, Harness } from './support/harness.js';

const Catalog = defineProtoService(CatalogDesc);
const PEER = fileURLToPath(new URL('./support/grpcio-builtin.py', import.meta.url));
/** The first Python that imports grpc and protobuf (pyenv may shadow Debian's /usr/bin/python3). */
const PYTHON = ['python3', '/usr/bin/python3'].find(
  (py) => spawnSync(py, ['-c', 'import grpc; from google.protobuf import descriptor_pool'], { stdio: 'ignore' }).status === 0,
);

const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  await harness.close();
});

async function runPython(mode: string, port: number): Promise<Record<string, unknown>> {
  if (PYTHON === undefined) throw new Error('Python with grpcio not found: run scripts/install-grpcio.sh (npm test does).');
  const child = spawn(PYTHON, [PEER, mode, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`grpcio-builtin.py ${mode} exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function provider(): Promise<number> {
  const port = await freePort();
  const app = await harness.start('builtin-provider');
  await app.export(Catalog, { getItem: (request) => ({ name: request.name, kind: 1 }), follow: async function* () {} }, { protocol: 'tri', port });
  await app.export(Greeter, greeterImpl(), { protocol: 'tri', port });
  return port;
}

describe('grpcio client → tri built-in services', () => {
  it('Health/Check answers SERVING for the server and each service, NOT_FOUND for an unknown one; Watch starts with the current status', async () => {
    const port = await provider();
    expect(await runPython('health', port)).toEqual({
      '(server)': 'SERVING',
      'weft.catalog.v1.Catalog': 'SERVING',
      'org.acme.Greeter': 'SERVING',
      unknown: ['NOT_FOUND', expect.stringContaining('Unknown service "org.acme.Nope"') as unknown],
      watch: 'SERVING',
    });
  });

  it('reflection v1: list, describe and invoke from the reflected descriptors (what grpcurl does)', async () => {
    const port = await provider();
    expect(await runPython('grpcurl', port)).toEqual({
      list: ['grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection', 'weft.catalog.v1.Catalog'],
      files: ['weft/catalog/v1/catalog.proto', 'weft/catalog/v1/types.proto', 'google/protobuf/descriptor.proto', 'google/protobuf/timestamp.proto'],
      methods: [
        ['GetItem', 'weft.catalog.v1.GetItemRequest', 'weft.catalog.v1.Item'],
        ['Follow', 'weft.catalog.v1.GetItemRequest', 'weft.catalog.v1.Item'],
      ],
      reply: { name: 'dune', kind: 'KIND_BOOK' },
    });
  });
});
