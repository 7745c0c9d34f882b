// Early answers (404/415/413/UNIMPLEMENTED before the request body was read) must reach clients still uploading:
// curl --http2-prior-knowledge 100 times per case, and a grpc-js client streaming to an unknown service.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { Harness } from './support/harness.js';

const CURL = '/usr/bin/curl';
const TRIES = 100;
const PARALLEL = 8;

const harness = new Harness();
afterEach(() => harness.close());

let dir = '';
let body = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-early-'));
  body = join(dir, 'body.bin');
  // 1 MiB of JSON-looking bytes (a string literal), far more than one HTTP/2 flow-control window.
  writeFileSync(body, `"${'x'.repeat(1024 * 1024 - 2)}"`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface CurlOutcome {
  readonly exit: number;
  readonly status: string;
  readonly stderr: string;
}

function curl(args: readonly string[]): Promise<CurlOutcome> {
  return new Promise((resolve) => {
    execFile(CURL, ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '10', ...args], (error, stdout, stderr) => {
      const exit = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ exit, status: stdout.trim(), stderr: stderr.trim() });
    });
  });
}

/** Runs curl `TRIES` times, `PARALLEL` at a time; returns how many exits and statuses were seen, by `exit/status`. */
async function curlMany(args: readonly string[]): Promise<Record<string, number>> {
  const tally: Record<string, number> = {};
  let started = 0;
  const worker = async () => {
    while (started < TRIES) {
      started++;
      const outcome = await curl(args);
      const key = `exit ${outcome.exit} status ${outcome.status}`;
      tally[key] = (tally[key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return tally;
}

describe('early answers', () => {
  const h2 = () => ['--http2-prior-knowledge', '-X', 'POST', '--data-binary', `@${body}`];
  const json = ['-H', 'content-type: application/json'];

  it('a 1 MiB upload to an unknown path gets its 404 over HTTP/2, 100 times out of 100', async () => {
    const { port } = await harness.pair();
    expect(await curlMany([...h2(), ...json, `http://127.0.0.1:${port}/org.acme.Nope/sayHello`])).toEqual({ 'exit 0 status 404': TRIES });
  }, 20_000);

  it('a 1 MiB text/plain upload gets its 415 over HTTP/2, 100 times out of 100', async () => {
    const { port } = await harness.pair();
    const type = ['-H', 'content-type: text/plain'];
    expect(await curlMany([...h2(), ...type, `http://127.0.0.1:${port}/org.acme.Greeter/sayHello`])).toEqual({ 'exit 0 status 415': TRIES });
  }, 20_000);

  it('a 1 MiB upload over payload gets its 413 over HTTP/2, 100 times out of 100, and the port keeps serving', async () => {
    const { port } = await harness.pair({ export: { parameters: { payload: 64 * 1024 } } });
    const base = `http://127.0.0.1:${port}`;
    expect(await curlMany([...h2(), ...json, `${base}/org.acme.Greeter/sayHello`])).toEqual({ 'exit 0 status 413': TRIES });
    expect(await curl(['--http2-prior-knowledge', ...json, '--data-binary', '["ok"]', `${base}/org.acme.Greeter/sayHello`])).toMatchObject({
      exit: 0,
      status: '200',
    });
  }, 20_000);

  it('over HTTP/1.1 too: a 1 MiB upload to an unknown path gets its 404, 100 times out of 100', async () => {
    const { port } = await harness.pair();
    const args = ['--http1.1', '-X', 'POST', '-H', 'content-type: application/json', '--data-binary', `@${body}`];
    expect(await curlMany([...args, `http://127.0.0.1:${port}/org.acme.Nope/sayHello`])).toEqual({ 'exit 0 status 404': TRIES });
  }, 20_000);

  it('a grpc-js client streaming to an unknown service gets UNIMPLEMENTED while it is still sending', async () => {
    const { port } = await harness.pair();
    const proto = fileURLToPath(new URL('./proto/weft/interop/v1/streaming.proto', import.meta.url));
    const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(proto, { defaults: true })) as unknown as {
      weft: { interop: { v1: { Streamer: grpc.ServiceClientConstructor } } };
    };
    const client = new loaded.weft.interop.v1.Streamer(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const record = client.record?.bind(client);
    if (record === undefined) throw new Error('the Streamer client has no record()');
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) {
        outcomes.push(
          await new Promise<string>((resolve) => {
            const call = record((error: grpc.ServiceError | null) => resolve(error === null ? 'OK' : `${grpc.status[error.code]}: ${error.details}`));
            // 64 KiB messages until the status arrives: the upload is still going when the server answers.
            let sent = 0;
            const write = () => {
              while (sent < 64 && call.write({ text: 'x'.repeat(64 * 1024) })) sent++;
              if (sent < 64) call.once('drain', write);
              else call.end();
            };
            write();
          }),
        );
      }
      expect(new Set(outcomes)).toEqual(
        new Set([`UNIMPLEMENTED: Invoker for gRPC not found: no service weft.interop.v1.Streamer is exported on 127.0.0.1:${port}.`]),
      );
    } finally {
      client.close();
    }
  }, 20_000);
});
