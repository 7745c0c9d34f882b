// Logging (issue 12): one info line per export, WEFT_LOG=debug shows discovery and every filter chain built,
// the level is read once when the logger is created, and secrets never reach a log line.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleLogger, defineService, Logger, maskSecrets, Protocol, URL, WeftApplication } from '@weft/core';

import { appDir } from './support/fixtures.js';

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
const impl = { sayHello: (name: string) => `hello ${name}` };

class MemoryLogger extends Logger {
  readonly lines: string[] = [];
  debug(message: string): void {
    this.lines.push(`debug: ${message}`);
  }
  info(message: string): void {
    this.lines.push(`info: ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`warn: ${message}`);
  }
  error(message: string): void {
    this.lines.push(`error: ${message}`);
  }
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('the per-export line', () => {
  it('a provider logs one info line per export, naming the service and its URL, with secrets masked', async () => {
    const logger = new MemoryLogger();
    const app = await WeftApplication.start({ root: appDir('app-mistakes'), name: 'shop', logger });
    try {
      const exported = await app.export(Greeter, impl, { version: '1.0.0', parameters: { token: 'sekret-123' } });
      const lines = logger.lines.filter((l) => l.startsWith('info: exported'));
      expect(lines).toEqual([`info: exported org.acme.Greeter at ${maskSecrets(exported.url)}`]);
      expect(lines[0]).toMatch(/^info: exported org\.acme\.Greeter at injvm:\/\/127\.0\.0\.1\/org\.acme\.Greeter\?.*token=\*\*\*/);
      expect(logger.lines.join('\n')).not.toContain('sekret-123');
    } finally {
      await app.shutdown();
    }
  });
});

describe('WEFT_LOG=debug', () => {
  it('shows discovery (packages found, manifests read) and the filter chain built for each export and refer', async () => {
    vi.stubEnv('WEFT_LOG', 'debug');
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const app = await WeftApplication.start({ root: appDir('app-mistakes'), name: 'debug' });
    try {
      await app.export(Greeter, impl, { filter: 'bom' });
      const injvm = app.model.getExtensionLoader(Protocol).getExtension('injvm');
      const invoker = await injvm.refer(Greeter, URL.parse('injvm://127.0.0.1/org.acme.Greeter?side=consumer&reference.filter=bom'));
      await invoker.destroy();
    } finally {
      await app.shutdown();
    }
    const root = app.model.framework.index.root;
    const packages = app.model.framework.index.packages.map((p) => `${p.name}@${p.version}`);
    expect(packages.slice(0, 4)).toEqual(['fixture-app-mistakes@1.0.0', '@weft/core@0.1.0', '@fixture/typo-point@1.0.0', '@fixture/bom-plugin@1.0.0']);
    expect(out).toContain(`[weft] debug: discovery from ${root}: ${packages.length} packages: ${packages.join(', ')}`);
    expect(out).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\[weft\] debug: discovery: @fixture\/bom-plugin@1\.0\.0 manifest weft\.rpc\.Filter \(.*bom-plugin\/META-INF\/weft\/weft\.rpc\.Filter\.json\): bom$/),
        expect.stringMatching(/^\[weft\] debug: discovery: @weft\/core@0\.1\.0 manifest weft\.rpc\.Protocol \(.*\): injvm, filter$/),
        '[weft] debug: filter chain for export of org.acme.Greeter (injvm://127.0.0.1): bom',
        '[weft] debug: filter chain for refer of org.acme.Greeter (injvm://127.0.0.1): bom',
        expect.stringMatching(/^\[weft\] exported org\.acme\.Greeter at injvm:\/\/127\.0\.0\.1\/org\.acme\.Greeter\?/),
      ]),
    );
  });

  it('is read once, when the logger is created: changing the variable later changes nothing', () => {
    vi.stubEnv('WEFT_LOG', 'debug');
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
    const logger = new ConsoleLogger();
    vi.stubEnv('WEFT_LOG', 'silent');
    logger.debug('still shown');
    new ConsoleLogger().info('not shown');
    new ConsoleLogger('weft', 'warn').info('not shown either');
    expect(out).toEqual(['[weft] debug: still shown']);
  });

  it('without it, debug lines are dropped and info lines shown', () => {
    vi.stubEnv('WEFT_LOG', '');
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
    const logger = new ConsoleLogger();
    logger.debug('dropped');
    logger.info('shown');
    expect(out).toEqual(['[weft] shown']);
  });
});

describe('maskSecrets', () => {
  it('masks the password and secret-looking parameters, service- and method-level, and nothing else', () => {
    const url = URL.parse('tri://ann:pa55@127.0.0.1:50051/org.acme.Greeter?token=t0k&sayHello.token=t1&access-key=k&timeout=1000&tokens=3');
    expect(maskSecrets(url)).toBe(
      'tri://ann:***@127.0.0.1:50051/org.acme.Greeter?token=***&sayHello.token=***&access-key=***&timeout=1000&tokens=3',
    );
  });

  it('masks the password of a parameter value that is itself a URL, and leaves other URL values alone', () => {
    const url = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter').addParameters({
      'tps.redis.address': 'redis://:s3cret@10.0.0.5:6379/0',
      other: 'rediss://ann:pw@h:1',
      plain: 'zookeeper://10.0.0.1:2181',
      mail: 'ann@example.org',
    });
    const masked = maskSecrets(url);
    expect(masked).not.toContain('s3cret');
    expect(masked).not.toContain(':pw@');
    expect(URL.parse(masked).getParameter('tps.redis.address')).toBe('redis://:***@10.0.0.5:6379/0');
    expect(URL.parse(masked).getParameter('other')).toBe('rediss://ann:***@h:1');
    expect(URL.parse(masked).getParameter('plain')).toBe('zookeeper://10.0.0.1:2181');
    expect(URL.parse(masked).getParameter('mail')).toBe('ann@example.org');
  });
});
