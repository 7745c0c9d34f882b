/** Where a command writes: structurally a Node writable stream (`process.stdout`), or a test's recorder. */
export interface CliOutput {
  /** Writes one chunk of text. */
  write(chunk: string): unknown;
}

/**
 * What the CLI needs from its process: the working directory, the two output streams and the environment.
 *
 * @remarks Passed to {@link main} explicitly, so tests run commands in-process with captured output and a
 * chosen working directory; `bin/weft.js` passes the real process's.
 * @example
 * ```ts
 * const code = await main(['doctor'], { cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr, env: process.env });
 * ```
 */
export interface CliIo {
  /** The working directory relative paths (and the default `--root`) are resolved against. */
  readonly cwd: string;
  /** Results: tables, reports, JSON with `--json`. */
  readonly stdout: CliOutput;
  /** Errors, warnings and hints. */
  readonly stderr: CliOutput;
  /** The environment (`WEFT_REGISTRY` is the default `--registry` of `weft override`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** When a long-running command (`weft admin`) stops: default, the first SIGINT or SIGTERM. */
  readonly stop?: Promise<unknown>;
}

/**
 * The exit codes of every `weft` command.
 *
 * @remarks
 * - `0` (`OK`): the command did what was asked and found nothing wrong.
 * - `1` (`FAILURE`): the command ran but failed or found problems: `doctor` problems, an override rule rejected
 *   by validation, a registry that cannot be reached, a filter list naming a filter that is not installed.
 * - `2` (`USAGE`): the command line is wrong: unknown command or flag, missing or invalid argument (an
 *   unparsable URL, a name that is not a service interface), nothing to run it on (no package.json).
 */
export const ExitCode = {
  /** Success. */
  OK: 0,
  /** The command ran and failed, or found problems. */
  FAILURE: 1,
  /** The command line is wrong. */
  USAGE: 2,
} as const;

/** One of the {@link ExitCode} values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * A wrong command line: reported with a pointer to `--help`, exit code 2.
 * @internal
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A command that ran and failed (registry unreachable, rule rejected…): reported as is, exit code 1.
 * @internal
 */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}

/**
 * Formats rows as a left-aligned text table with a header row; the last column is never padded.
 * @internal
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[], indent = '  '): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    indent +
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/**
 * JSON for `--json` output: two-space indented, one trailing newline.
 * @internal
 */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * The message of anything thrown, with an `ExtensionError`/`RpcError` code in brackets when it has one.
 * @internal
 */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && code !== '' && !error.message.includes(code) ? `${error.message} [${code}]` : error.message;
  }
  return String(error);
}
