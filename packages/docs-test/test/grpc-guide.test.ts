// docs/guide/grpc.md cannot rot: its .proto is generated with `buf generate` (protoc-gen-es, as the guide says) and
// every TypeScript file it shows (```ts blocks whose first line is `// src/<file>.ts`) is type-checked with tsc
// against the workspace's packages — the proxy and implementation types inferred from the generated descriptor.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const guide = readFileSync(join(repo, 'docs', 'guide', 'grpc.md'), 'utf8');
// Inside the repository (ignored by git), so the packages resolve from its node_modules as they would in an app.
const work = join(repo, '.weft-tmp', `grpc-guide-${process.pid}`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The fenced blocks of `lang` whose first line is `// <path>`: [path, content]. */
function files(lang: string): [string, string][] {
  const found: [string, string][] = [];
  const fence = new RegExp(`^\`\`\`${lang}\\n// ([\\w./-]+)\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  for (const match of guide.matchAll(fence)) found.push([match[1] as string, `// ${match[1] as string}\n${match[2] as string}`]);
  return found;
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { cwd: work, encoding: 'utf8', timeout: 60_000 });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${String(result.status)}):\n${output}`);
  return output;
}

describe('docs/guide/grpc.md', () => {
  it('shows one .proto and the application files, and they type-check against the real packages', () => {
    const protos = files('text'); // a ```text block: typedoc highlights no proto
    const sources = files('ts');
    expect(protos.map(([path]) => path)).toEqual(['proto/acme/greet/v1/greeter.proto']);
    expect(sources.map(([path]) => path)).toEqual([
      'src/greeter.ts',
      'src/provider.ts',
      'src/consumer.ts',
      'src/ticker.ts',
      'src/cancel.ts',
      'src/grpc-js-client.ts',
      'src/call-grpc-server.ts',
    ]);
    rmSync(work, { recursive: true, force: true });
    for (const [path, content] of [...protos, ...sources]) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content);
    }
    // buf.yaml and buf.gen.yaml exactly as the guide shows them.
    const yaml = [...guide.matchAll(/^`(buf(?:\.gen)?\.yaml)`:\n\n```yaml\n([\s\S]*?)^```$/gm)];
    expect(yaml.map((m) => m[1])).toEqual(['buf.yaml', 'buf.gen.yaml']);
    for (const m of yaml) writeFileSync(join(work, m[1] as string), m[2] as string);
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'grpc-guide', private: true, type: 'module' }));
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { noEmit: true, declaration: false, declarationMap: false }, include: ['src/**/*.ts'] }),
    );
    const bin = join(repo, 'node_modules', '.bin');
    const buf = spawnSync(join(bin, 'buf'), ['generate'], { cwd: work, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` } });
    expect(`${buf.stdout}${buf.stderr}`).toBe('');
    expect(buf.status).toBe(0);
    expect(readFileSync(join(work, 'src', 'gen', 'acme', 'greet', 'v1', 'greeter_pb.ts'), 'utf8')).toContain('export const Greeter: GenService<');
    // No output from tsc: every block compiles under the repository's strict settings.
    expect(run(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'])).toBe('');
  }, 60_000);
});
