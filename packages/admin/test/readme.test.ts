// The README cannot rot: every endpoint its API table names is one the server answers (not "no API endpoint"),
// every option of AdminOptions is in its options table, and the startAdmin snippet runs (against an embedded
// registry instead of ZooKeeper).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import * as admin from '@weft/admin';
import { RecordingLogger } from '@weft/test-utils';

import { AdminClient } from './support/admin-client.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
let dir: string;
let server: admin.AdminServer;
let client: AdminClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-admin-readme-'));
  server = await admin.startAdmin({ registry: `embedded://${dir}`, port: 0, token: 'readme-token', logger: new RecordingLogger() });
  client = new AdminClient(server.url);
  await client.login('readme-token');
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('README', () => {
  it('every endpoint of the API table is answered by the server', async () => {
    const rows = [...readme.matchAll(/^\| `((?:GET|POST|DELETE)(?:\|(?:GET|POST|DELETE))*) (\/api\/[^`\s]+)/gm)].map((m) => [m[1] as string, m[2] as string] as const);
    expect(rows.length).toBeGreaterThanOrEqual(15);
    for (const [method, path] of rows) {
      const concrete = path.replace('<interface>', 'org.acme.Greeter').replace(/\?.*$/, '');
      const answer = await client.call(method, concrete, method === 'GET' ? undefined : {});
      if (concrete === '/api/logout') {
        expect(answer.status).toBe(204);
        await client.login('readme-token');
        continue;
      }
      expect(String((answer.body as { error?: string })?.error ?? ''), `${method} ${path}`).not.toContain('no API endpoint');
      expect(answer.status, `${method} ${path}`).not.toBe(405);
    }
  });

  it('the options table lists every option', () => {
    const dts = readFileSync(join(packageDir, 'dist', 'server', 'admin-options.d.ts'), 'utf8');
    const body = dts.slice(dts.indexOf('interface AdminOptions'), dts.indexOf('interface AdminServer'));
    const options = [...body.matchAll(/^\s+readonly (\w+)\??:/gm)].map((m) => m[1] as string);
    expect(options.length).toBeGreaterThan(10);
    for (const option of options) expect(readme, option).toContain(`| \`${option}\` |`);
  });

  it('the startAdmin snippet runs', async () => {
    const snippet = /```ts\n(import \{ startAdmin \} from '@weft\/admin';[\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet).toBeDefined();
    const logged: string[] = [];
    const body = (snippet as string)
      .replace("import { startAdmin } from '@weft/admin';", '')
      .replace("'zookeeper://127.0.0.1:2181'", JSON.stringify(`embedded://${dir}`))
      .replace('port: 8088', 'port: 0, token: "snippet-token", logger')
      .replace('console.log(', 'logged.push(');
    const run = new Function('startAdmin', 'logged', 'logger', `return (async () => {${body}})();`) as (s: typeof admin.startAdmin, l: string[], logger: RecordingLogger) => Promise<void>;
    await run(admin.startAdmin, logged, new RecordingLogger());
    expect(logged).toEqual([expect.stringMatching(/^Weft admin on http:\/\/127\.0\.0\.1:\d+ \(token: snippet-token\)$/)]);
  });
});
