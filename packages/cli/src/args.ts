import { UsageError } from './io.js';

/** How a flag takes its value. */
export type OptionKind = 'boolean' | 'string' | 'list';

/**
 * One flag a command accepts.
 * @internal
 */
export interface OptionSpec {
  /** Long name without the dashes: `root` for `--root`. */
  readonly name: string;
  /** One-letter alias without the dash: `h` for `-h`. */
  readonly short?: string;
  /** `boolean` takes no value; `string` takes one (the last one wins); `list` may be repeated. */
  readonly kind: OptionKind;
  /** Placeholder shown in help: `<dir>`. */
  readonly value?: string;
  /** One line for the help text. */
  readonly description: string;
  /** Allowed values, checked by the parser. */
  readonly choices?: readonly string[];
}

/**
 * A parsed command line: flags by long name, and the positional arguments in order.
 * @internal
 */
export interface ParsedArgs {
  readonly flags: ReadonlyMap<string, string | true | readonly string[]>;
  readonly positionals: readonly string[];
}

/**
 * Parses `argv` against the flags a command accepts.
 *
 * @remarks Conventional syntax, no dependency: `--flag value`, `--flag=value`, `-f value`, boolean flags without
 * a value (`--json`), repeatable list flags (`--param a=1 --param b=2`), `--` ends the flags. An unknown flag, a
 * missing value or a value outside `choices` is a {@link UsageError}.
 * @internal
 */
export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[]): ParsedArgs {
  const byLong = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short !== undefined).map((s) => [s.short as string, s]));
  const flags = new Map<string, string | true | string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let spec: OptionSpec | undefined;
    let inline: string | undefined;
    let shown = arg;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
      shown = `--${name}`;
      spec = byLong.get(name);
      if (spec === undefined) throw new UsageError(`unknown flag ${shown}${suggest(name, [...byLong.keys()], '--')}`);
    } else if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
      const name = arg.slice(1, 2);
      inline = arg.length > 2 ? arg.slice(2).replace(/^=/, '') : undefined;
      shown = `-${name}`;
      spec = byShort.get(name);
      if (spec === undefined) throw new UsageError(`unknown flag ${arg}`);
    } else {
      positionals.push(arg);
      continue;
    }
    if (spec.kind === 'boolean') {
      if (inline !== undefined) throw new UsageError(`${shown} takes no value (got "${inline}")`);
      flags.set(spec.name, true);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      // A value may start with "-" (filter lists: --filter -accesslog, numbers: --order -5); only a flag this
      // command knows is taken as a missing value.
      if (next === undefined || isKnownFlag(next, byLong, byShort)) {
        throw new UsageError(`${shown} needs a value${spec.value !== undefined ? ` ${spec.value}` : ''}`);
      }
      value = next;
      i++;
    }
    if (spec.choices !== undefined && !spec.choices.includes(value)) {
      throw new UsageError(`${shown} must be one of ${spec.choices.join(', ')} (got "${value}")`);
    }
    if (spec.kind === 'list') {
      const list = flags.get(spec.name);
      if (Array.isArray(list)) list.push(value);
      else flags.set(spec.name, [value]);
    } else {
      flags.set(spec.name, value);
    }
  }
  return { flags, positionals };
}

function isKnownFlag(token: string, byLong: ReadonlyMap<string, OptionSpec>, byShort: ReadonlyMap<string, OptionSpec>): boolean {
  if (token === '--') return true;
  if (token.startsWith('--')) {
    const eq = token.indexOf('=');
    return byLong.has(eq < 0 ? token.slice(2) : token.slice(2, eq));
  }
  return token.length === 2 && token.startsWith('-') && byShort.has(token.slice(1));
}

/** The value of a string flag, or undefined. @internal */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** Whether a boolean flag was given. @internal */
export function booleanFlag(args: ParsedArgs, name: string): boolean {
  return args.flags.get(name) === true;
}

/** The values of a repeatable flag, in order. @internal */
export function listFlag(args: ParsedArgs, name: string): readonly string[] {
  const value = args.flags.get(name);
  return Array.isArray(value) ? value : [];
}

/** Parses a non-negative integer flag (e.g. `--timeout`), or returns the default. @internal */
export function integerFlag(args: ParsedArgs, name: string, defaultValue: number): number {
  const raw = stringFlag(args, name);
  if (raw === undefined) return defaultValue;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number (got "${raw}")`);
  return Number(raw);
}

/** " (did you mean …?)" for the closest names, or "". @internal */
export function suggest(name: string, names: readonly string[], prefix: string): string {
  const best = Math.min(...names.map((n) => distance(n, name)));
  let close = best <= 2 ? names.filter((n) => distance(n, name) === best) : [];
  if (close.length === 0) close = names.filter((n) => name.length >= 3 && n.startsWith(name.slice(0, 3)));
  return close.length > 0 ? ` (did you mean ${close.map((n) => prefix + n).join(' or ')}?)` : '';
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}
