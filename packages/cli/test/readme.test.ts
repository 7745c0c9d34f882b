// The README and the help texts cannot rot: every flag is documented, and every example command line parses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { cliDir, weft } from './support/cli.ts';

const readme = readFileSync(join(cliDir, 'README.md'), 'utf8');
const COMMANDS = ['extensions', 'explain', 'override', 'admin', 'doctor', 'new'];

/** Splits a shell command line into words (single and double quotes, # comments). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else word = (word ?? '') + ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (ch === '#' && word === undefined) {
      break;
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Runs an example with --help appended: the parser checks every flag and value before the help is printed. */
async function parses(line: string): Promise<void> {
  const words = shellWords(line);
  expect(words[0], line).toBe('weft');
  const result = await weft([...words.slice(1), '--help']);
  expect(result.stderr, line).toBe('');
  expect(result.code, line).toBe(0);
}

describe('README', () => {
  it('has a section for every command, documenting every flag it accepts', async () => {
    for (const command of COMMANDS) {
      expect(readme).toContain(`## weft ${command}`);
      const help = (await weft([command, '--help'])).stdout;
      const flags = [...help.matchAll(/^\s+(?:-\w, )?\s*--([a-z-]+)/gm)].map((m) => m[1] as string).filter((f) => f !== 'help');
      expect(flags.length, command).toBeGreaterThan(0);
      const section = readme.slice(readme.indexOf(`## weft ${command}`), readme.indexOf('\n## ', readme.indexOf(`## weft ${command}`) + 1));
      for (const flag of flags) expect(section, `${command} --${flag}`).toContain(`--${flag}`);
    }
  });

  it('documents the three exit codes', () => {
    for (const code of ['0', '1', '2']) expect(readme).toMatch(new RegExp(`^\\| \`${code}\` \\|`, 'm'));
  });

  it('every example command line in the README parses', async () => {
    const lines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => (m[1] as string).split('\n')).filter((l) => l.startsWith('weft '));
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) await parses(line);
  });

  it('every example in the help texts parses', async () => {
    for (const command of COMMANDS) {
      const help = (await weft([command, '--help'])).stdout;
      const examples = [...help.matchAll(/^ {2}\$ (weft .*)$/gm)].map((m) => m[1] as string);
      expect(examples.length, command).toBeGreaterThan(0);
      for (const example of examples) await parses(example);
    }
  });
});
