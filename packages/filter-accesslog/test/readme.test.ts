import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { WeftApplication } from '@weft/core';
import { AccessLogDefaults, AccessLogKeys, AccessLogStats } from '@weft/filter-accesslog';
import { createTestApp, sourceRegion } from '@weft/test-utils';

import { Greeter, greeterImpl, packageRoot, RecordingLogger } from './support/harness.js';

const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');

const region = (name: string): string => sourceRegion(thisFile, name);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('README', () => {
  it('usage snippet runs: one Dubbo-format line per call, in the file once the application has shut down', async () => {
    const test = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-accesslog']);
    const cwd = process.cwd();
    process.chdir(test.root);
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const app = await WeftApplication.start({ root: test.root, name: 'shop', logger: new RecordingLogger() });
      const impl = greeterImpl();

      // #region usage
      await app.export(Greeter, impl, { version: '1.0.0', parameters: { accesslog: 'logs/access.log' } });
      const greeter = await app.refer(Greeter, { version: '1.0.0' });
      await greeter.sayHello('ann', 2);

      const stats = app.model.getService(AccessLogStats);
      await app.shutdown(); // writes what is still queued, then closes the file
      console.log(readFileSync('logs/access.log', 'utf8'), stats.written);
      // #endregion usage

      expect(log).toHaveBeenCalledTimes(1);
      const [text, written] = log.mock.calls[0] as [string, number];
      expect(written).toBe(1);
      expect(text).toMatch(
        /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{5}\] -> \[[^\]]+\] 127\.0\.0\.1:0 -> 127\.0\.0\.1:0 - org\.acme\.Greeter:1\.0\.0 sayHello\(String,Number\) \["ann",2\]\n$/,
      );
    } finally {
      process.chdir(cwd);
      test.cleanup();
    }
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
  });

  it('documents every URL key in the options table, with its default', () => {
    for (const key of Object.values(AccessLogKeys)) expect(readme).toContain(`| \`${key}\` |`);
    expect(readme).toContain(`| \`accesslog.flush.interval\` | integer (ms) | \`${AccessLogDefaults.FLUSH_INTERVAL}\` |`);
    expect(readme).toContain(`| \`accesslog.buffer.size\` | integer (lines) | \`${AccessLogDefaults.BUFFER_SIZE}\` |`);
    expect(readme).toContain(`| \`accesslog.max.pending\` | integer (lines) | \`${AccessLogDefaults.MAX_PENDING}\` |`);
  });

  it('lists the contributed extensions with the activation the manifests declare', () => {
    const filterManifest = JSON.parse(readFileSync(join(packageRoot, 'META-INF/weft/weft.rpc.Filter.json'), 'utf8')) as Record<string, unknown>;
    const validatorManifest = JSON.parse(
      readFileSync(join(packageRoot, 'META-INF/weft/weft.config.ConfigValidator.json'), 'utf8'),
    ) as Record<string, unknown>;
    for (const manifest of [filterManifest, validatorManifest]) {
      expect(manifest['accesslog']).toMatchObject({ activate: { group: ['provider'], value: ['accesslog'] } });
    }
    expect(readme).toContain('| `weft.rpc.Filter` | `accesslog` | group `provider`, when `accesslog`');
    expect(readme).toContain('| `weft.config.ConfigValidator` | `accesslog` | group `provider`, when `accesslog`');
  });
});
