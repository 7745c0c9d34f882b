// Bounded YAML rules: size, nesting and alias expansion are refused before any rule of the document applies, and a
// document at the size limit parses in well under a second (a 900 KB one used to cost 71 s of CPU downstream).
import { describe, expect, it } from 'vitest';

import { URL } from '@weft/core';
import { ruleLimitsOf } from '@weft/core/spi';
import { parseConfiguratorRules } from '@weft/registry-zookeeper';

function bigRule(bytes: number): string {
  let text = 'configVersion: v3.0\nkey: org.acme.Greeter\nconfigs:\n';
  for (let i = 0; text.length < bytes; i++) {
    text += `  - side: consumer\n    addresses: ["10.0.${(i >> 8) & 255}.${i & 255}"]\n    parameters: {timeout: ${i}}\n`;
  }
  return text;
}

describe('configurator rules: documented limits', () => {
  it('refuses a 900 KB document without parsing it (rule.yaml.max-bytes, default 262144)', () => {
    const text = bigRule(900_000);
    const started = performance.now();
    expect(() => parseConfiguratorRules(text)).toThrow(
      `Invalid configurator rule: the document is ${Buffer.byteLength(text)} bytes, more than rule.yaml.max-bytes=65536 (a registry URL key); it was not parsed.`,
    );
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('parses a document up to the limit, and a larger one when the registry URL raises it', () => {
    const text = bigRule(60_000);
    const urls = parseConfiguratorRules(text);
    expect(urls.length).toBeGreaterThan(700);
    expect(urls[0]?.getParameter('timeout')).toBe('0');
    const raised = ruleLimitsOf(URL.parse('zookeeper://127.0.0.1:2181?rule.yaml.max-bytes=200000'));
    expect(parseConfiguratorRules(bigRule(150_000), raised).length).toBeGreaterThan(1800);
  });

  it('refuses a document nested deeper than rule.yaml.max-depth (default 32) before parsing it', () => {
    const deep = `configVersion: v3.0\nkey: a.B\nconfigs: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    expect(() => parseConfiguratorRules(deep)).toThrow(/nests at least \d+ levels deep, more than rule\.yaml\.max-depth=32; it was not parsed\.$/);
    const dashes = `${'- '.repeat(40)}x\n`;
    expect(() => parseConfiguratorRules(dashes)).toThrow(/more than rule\.yaml\.max-depth=32/);
  });

  it('refuses an alias bomb (rule.yaml.max-aliases, default 100)', () => {
    const lines = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]'];
    for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    expect(() => parseConfiguratorRules(lines.join('\n'))).toThrow(/expands its aliases too much \(more than rule\.yaml\.max-aliases=100\)/);
  });

  it('refuses a document translating to more than rule.max-count override URLs', () => {
    const limits = ruleLimitsOf(URL.parse('zookeeper://127.0.0.1:2181?rule.max-count=10'));
    expect(() => parseConfiguratorRules(bigRule(3000), limits)).toThrow(/stands for \d+ override URLs, more than rule\.max-count=10\./);
  });
});
