// weft route against an embedded registry (routers-category rules) and a real ZooKeeper (config-centre YAML
// rules): rules are validated by the consumers' own routers before anything is written.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { URL } from '@weft/core';
import { EmbeddedRegistry } from '@weft/registry-embedded';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

import { json, weft, type RunResult } from './support/cli.ts';
import { ZookeeperServer } from '../../registry-zookeeper/test/support/zookeeper-server.ts';

let dir: string;
let registry: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-cli-route-'));
  registry = `embedded://${dir}`;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const route = (...argv: string[]): Promise<RunResult> => weft(['route', ...argv]);
const routerFiles = () => {
  const folder = join(dir, 'dubbo', 'org.acme.Users', 'routers');
  return existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : [];
};

describe('weft route add / list / rm (routers category)', () => {
  it('writes the legacy condition URL, lists it decoded, removes it by its text', async () => {
    const rule = 'host = 10.20.* & method = find* => host != 10.20.153.11';
    const added = await route('add', '--registry', registry, '--service', 'org.acme.Users', '--force', '--priority', '3', rule);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(
      'condition://0.0.0.0/org.acme.Users?category=routers&dynamic=false&enabled=true&force=true&priority=3&router=condition&runtime=false&rule=host%2B%253D%2B10.20.*%2B%2526%2Bmethod%2B%253D%2Bfind*%2B%253D%253E%2Bhost%2B%2521%253D%2B10.20.153.11',
    );
    expect(routerFiles()).toHaveLength(1);
    const listed = json<{ routers: { rule: string; force: boolean; priority: number; enabled: boolean }[] }>(
      await route('list', '--registry', registry, '--service', 'org.acme.Users', '--json'),
    );
    expect(listed.routers).toEqual([expect.objectContaining({ rule, force: true, priority: 3, enabled: true })]);
    const text = await route('list', '--registry', registry, '--service', 'org.acme.Users');
    expect(text.stdout).toContain('Condition routes of org.acme.Users in the routers category (1):');
    expect(text.stdout).toContain(rule);
    const removed = await route('rm', '--registry', registry, '--service', 'org.acme.Users', rule);
    expect(removed.code).toBe(0);
    expect(routerFiles()).toEqual([]);
    const again = await route('rm', '--registry', registry, '--service', 'org.acme.Users', rule);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no condition route of org.acme.Users is "host = 10.20.* & method = find* => host != 10.20.153.11"');
  });

  it('refuses an unparsable rule with the router\'s message and writes nothing', async () => {
    const bad = await route('add', '--registry', registry, '--service', 'org.acme.Users', 'host == 10.20.153.5 => false');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('rejected, nothing written: the rule "host == 10.20.153.5 => false": Rejected the routing rule');
    expect(bad.stderr).toContain('Illegal route rule "host == 10.20.153.5", The error char \'==\' at index 5 before "10.20.153.5".');
    expect(routerFiles()).toEqual([]);
  });

  it('put / list / rm a YAML rule in the embedded config centre (a private file per key); config-center=false refuses put', async () => {
    const yaml = 'tags: [{name: gray, addresses: ["10.0.0.3:50051"]}]';
    const file = join(dir, 'dubbo', 'config', 'dubbo', 'user-service.tag-router');
    const put = await route('put', '--registry', registry, '--kind', 'tag', '--key', 'user-service', '--yaml', yaml);
    expect(put.stderr).toBe('');
    expect(put.stdout).toBe(`Wrote the tag rule ${file} to ${registry}.\n`);
    expect(readFileSync(file, 'utf8')).toBe(yaml);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const listed = json<{ documents: { path: string; text: string }[] }>(
      await route('list', '--registry', registry, '--service', 'org.acme.Users', '--provider-application', 'user-service', '--json'),
    );
    expect(listed.documents).toEqual([{ path: file, text: yaml }]);
    // A rule the tag router refuses is not written.
    const bad = await route('put', '--registry', registry, '--kind', 'tag', '--key', 'user-service', '--yaml', 'tags: [{name: gray}]');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('rejected, nothing written');
    expect(readFileSync(file, 'utf8')).toBe(yaml);
    const removed = await route('rm', '--registry', registry, '--kind', 'tag', '--key', 'user-service');
    expect(removed.code).toBe(0);
    expect(existsSync(file)).toBe(false);

    const off = await route('put', '--registry', `${registry}?config-center=false`, '--kind', 'tag', '--key', 'user-service', '--yaml', yaml);
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('has no config centre (config-center=false): YAML rules need one (or use weft route add for a routers URL)');
  });

  it('usage errors', async () => {
    expect((await route('add', '--registry', registry, 'x => y')).stderr).toContain('missing --service <interface>');
    expect((await route('put', '--registry', registry, '--kind', 'tag', '--key', 'org.acme.Users::', '--yaml', 'x')).stderr).toContain('tag rules belong to a provider application');
    expect((await route('nope')).stderr).toContain('unknown subcommand "nope": expected add, put, list or rm');
  });
});

describe('weft explain shows the routers and what they select for a sample call', () => {
  const project = createTestApp(['@weft/core', '@weft/cluster', '@weft/routers']);
  afterAll(() => project.cleanup());

  it('lists the router chain from the manifests and routes a sample call with the registry\'s providers and rules', async () => {
    const embedded = new EmbeddedRegistry(URL.parse(`${registry}?file-cache=false`), new RecordingLogger(), dir);
    for (const [host, tag] of [['10.0.0.1', 'gray'], ['10.0.0.2', undefined], ['10.0.0.3', undefined]] as const) {
      await embedded.register(URL.parse(`tri://${host}:50051/org.acme.Users?interface=org.acme.Users&side=provider&dynamic=false&methods=findUser,getUser${tag ? `&dubbo.tag=${tag}` : ''}`));
    }
    await embedded.destroy();
    expect((await route('add', '--registry', registry, '--service', 'org.acme.Users', 'method = find* => host != 10.0.0.2')).code).toBe(0);

    const plain = await weft(['explain', '--side', 'consumer', 'org.acme.Users', '--root', project.root]);
    expect(plain.stdout).toContain('Router chain (weft.rpc.Router, group consumer; router = (not set: automatic activation only)):\n  directory → [ tag → condition ] → load balance\n');

    const untagged = await weft(['explain', '--side', 'consumer', 'org.acme.Users', '--root', project.root, '--registry', registry, '--method', 'findUser']);
    expect(untagged.stderr).toBe('');
    expect(untagged.stdout).toContain(`A sample call findUser(), routed among the 3 provider(s) at ${registry} by the routers installed with weft:`);
    expect(untagged.stdout).toMatch(/tag\s+static tag gray: 10\.0\.0\.1:50051\s+10\.0\.0\.2:50051, 10\.0\.0\.3:50051\s+10\.0\.0\.1:50051/);
    expect(untagged.stdout).toMatch(/condition\s+method = find\* => host != 10\.0\.0\.2 {2}\[the routers category of org\.acme\.Users/);
    expect(untagged.stdout).toContain('  → the load balance chooses among: 10.0.0.3:50051\n');

    const gray = json<{ routers: { chain: { name: string }[]; sample: { steps: { router: string; selected: string[] }[] } } }>(
      await weft(['explain', '--side', 'consumer', 'org.acme.Users', '--root', project.root, '--registry', registry, '--method', 'getUser', '--attachment', 'dubbo.tag=gray', '--json']),
    );
    expect(gray.routers.chain.map((c) => c.name)).toEqual(['tag', 'condition']);
    expect(gray.routers.sample.steps).toEqual([
      expect.objectContaining({ router: 'tag', selected: ['10.0.0.1:50051'] }),
      expect.objectContaining({ router: 'condition', selected: ['10.0.0.1:50051'] }),
    ]);
  });
});

describe('weft route put / rm (ZooKeeper config centre)', () => {
  let zk: ZookeeperServer;
  beforeAll(async () => {
    zk = await ZookeeperServer.start();
  }, 30_000);
  afterAll(async () => {
    await zk?.dispose();
  });

  it('writes a YAML tag rule and a service condition rule, lists them, refuses a bad one, deletes them', async () => {
    const zkUrl = zk.url;
    const tag = 'force: false\ntags:\n- name: gray\n  addresses: ["10.0.0.3:20880"]\n';
    const put = await route('put', '--registry', zkUrl, '--kind', 'tag', '--key', 'user-service', '--yaml', tag);
    expect(put.stderr).toBe('');
    expect(put.stdout).toBe(`Wrote the tag rule /dubbo/config/dubbo/user-service.tag-router to ${zkUrl}.\n`);
    const cond = await route('put', '--registry', zkUrl, '--kind', 'condition', '--key', 'org.acme.Users::', '--yaml', "conditions: ['method = find* => region = $region']");
    expect(cond.code).toBe(0);
    const listed = await route('list', '--registry', zkUrl, '--service', 'org.acme.Users', '--provider-application', 'user-service');
    expect(listed.stdout).toContain('/dubbo/config/dubbo/org.acme.Users::.condition-router:\n  conditions: [\'method = find* => region = $region\']');
    expect(listed.stdout).toContain('/dubbo/config/dubbo/user-service.tag-router:\n  force: false\n  tags:');

    const bad = await route('put', '--registry', zkUrl, '--kind', 'tag', '--key', 'user-service', '--yaml', 'tags:\n- name: gray\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('has neither addresses nor match');
    // the previous document is still there
    expect((await route('list', '--registry', zkUrl, '--service', 'org.acme.Users', '--provider-application', 'user-service')).stdout).toContain('10.0.0.3:20880');

    expect((await route('rm', '--registry', zkUrl, '--kind', 'tag', '--key', 'user-service')).code).toBe(0);
    expect((await route('rm', '--registry', zkUrl, '--kind', 'condition', '--key', 'org.acme.Users::')).code).toBe(0);
    expect((await route('list', '--registry', zkUrl, '--service', 'org.acme.Users', '--provider-application', 'user-service')).stdout).toBe(`No routing rules for org.acme.Users at ${zkUrl}.\n`);
  }, 30_000);
});
