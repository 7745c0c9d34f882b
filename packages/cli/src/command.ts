import type { OptionSpec, ParsedArgs } from './args.js';
import type { CliIo } from './io.js';

/**
 * What a running command gets: the process's I/O and two writers.
 * @internal
 */
export interface CommandContext {
  readonly io: CliIo;
  /** Writes to stdout. */
  out(text: string): void;
  /** Writes to stderr. */
  err(text: string): void;
}

/**
 * One `weft` command: its help and its implementation.
 * @internal
 */
export interface Command {
  readonly name: string;
  /** One line for `weft --help`. */
  readonly summary: string;
  /** Usage lines, without the leading `weft `. */
  readonly usage: readonly string[];
  /** Paragraphs explaining what it does. */
  readonly description: string;
  readonly options: readonly OptionSpec[];
  /** Example command lines, each with an optional `# comment` line before it. */
  readonly examples: readonly string[];
  /** Exit codes specific to the command (0/1/2 meanings). */
  readonly exitCodes: readonly string[];
  run(args: ParsedArgs, ctx: CommandContext): Promise<number>;
}

/** `-h/--help`, accepted by every command. @internal */
export const HELP_OPTION: OptionSpec = { name: 'help', short: 'h', kind: 'boolean', description: 'Show this help.' };
/** `--json`. @internal */
export const JSON_OPTION: OptionSpec = { name: 'json', kind: 'boolean', description: 'Print the result as JSON on stdout (for scripts).' };
/** `--root <dir>`. @internal */
export const ROOT_OPTION: OptionSpec = {
  name: 'root',
  kind: 'string',
  value: '<dir>',
  description: 'Application directory (its package.json starts discovery). Default: the nearest directory with a package.json, from the working directory up.',
};

/** Renders a command's help text. @internal */
export function renderHelp(command: Command): string {
  const lines: string[] = [];
  lines.push(`weft ${command.name} — ${command.summary}`, '', 'Usage:');
  for (const usage of command.usage) lines.push(`  weft ${usage}`);
  lines.push('', ...command.description.trim().split('\n'), '', 'Options:');
  const labels = command.options.map((o) => `${o.short !== undefined ? `-${o.short}, ` : '    '}--${o.name}${o.value !== undefined ? ` ${o.value}` : ''}`);
  const width = Math.max(...labels.map((l) => l.length));
  command.options.forEach((o, i) => {
    const repeat = o.kind === 'list' ? ' (repeatable)' : '';
    lines.push(`  ${(labels[i] as string).padEnd(width)}  ${o.description}${repeat}`);
  });
  if (command.examples.length > 0) {
    lines.push('', 'Examples:');
    for (const example of command.examples) lines.push(example === '' ? '' : example.startsWith('#') ? `  ${example}` : `  $ ${example}`);
  }
  lines.push('', 'Exit codes:', ...command.exitCodes.map((c) => `  ${c}`));
  return `${lines.join('\n')}\n`;
}
