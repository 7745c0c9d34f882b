import { ExtensionError } from '@weft/core';

import { booleanFlag, parseArgs, suggest } from './args.js';
import { renderHelp, type Command, type CommandContext } from './command.js';
import { adminCommand } from './commands/admin.js';
import { doctorCommand } from './commands/doctor.js';
import { explainCommand } from './commands/explain.js';
import { extensionsCommand } from './commands/extensions.js';
import { newCommand } from './commands/new.js';
import { overrideCommand } from './commands/override.js';
import { qosCommand } from './commands/qos.js';
import { routeCommand } from './commands/route.js';
import { CliFailure, describeThrown, ExitCode, toJson, UsageError, type CliIo } from './io.js';
import { cliVersion } from './project.js';

const COMMANDS: readonly Command[] = [extensionsCommand, explainCommand, overrideCommand, routeCommand, adminCommand, doctorCommand, newCommand, qosCommand];

function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `weft — the command line of Weft (Dubbo-style RPC for TypeScript)

Usage:
  weft <command> [arguments] [flags]
  weft <command> --help
  weft --version

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Flags every command accepts:
  -h, --help     Show the command's help.
  --json         Print the result as JSON on stdout (for scripts).
  --root <dir>   (extensions, explain, doctor) The application directory; default: the nearest directory with a
                 package.json, from the working directory up.

Exit codes:
  0  success
  1  the command ran and failed or found problems (doctor problems, rule rejected, registry unreachable)
  2  usage error (unknown command or flag, missing or invalid argument)
`;
}

/**
 * Runs the `weft` command line: parses `argv` (without the node and script paths), runs the command, and
 * returns the exit code.
 *
 * @remarks
 * Never throws and never calls `process.exit`: every error becomes a message on `io.stderr` and an
 * {@link ExitCode} — `0` success, `1` failure or problems found, `2` usage error. `bin/weft.js` calls it with the
 * process's streams; tests call it in-process with recorders.
 * @example
 * ```ts
 * const code = await main(['explain', '--side', 'provider', 'org.acme.Greeter', '--param', 'tps=100'], {
 *   cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr, env: process.env,
 * });
 * process.exitCode = code;
 * ```
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr.write(globalHelp());
    return ExitCode.USAGE;
  }
  if (first === '-h' || first === '--help') {
    io.stdout.write(globalHelp());
    return ExitCode.OK;
  }
  if (first === '--version' || first === '-v') {
    io.stdout.write(`${cliVersion()}\n`);
    return ExitCode.OK;
  }
  if (first === 'help') {
    const topic = rest[0];
    const command = COMMANDS.find((c) => c.name === topic);
    if (topic === undefined) {
      io.stdout.write(globalHelp());
      return ExitCode.OK;
    }
    if (command === undefined) return usage(io, undefined, `unknown command "${topic}"${suggestCommand(topic)}`, false);
    io.stdout.write(renderHelp(command));
    return ExitCode.OK;
  }
  const command = COMMANDS.find((c) => c.name === first);
  if (command === undefined) {
    const what = first.startsWith('-') ? `unknown flag ${first} (flags go after the command)` : `unknown command "${first}"${suggestCommand(first)}`;
    return usage(io, undefined, what, false);
  }
  const json = rest.includes('--json');
  const ctx: CommandContext = { io, out: (text) => void io.stdout.write(text), err: (text) => void io.stderr.write(text) };
  try {
    const args = parseArgs(rest, command.options);
    if (booleanFlag(args, 'help')) {
      io.stdout.write(renderHelp(command));
      return ExitCode.OK;
    }
    return await command.run(args, ctx);
  } catch (error) {
    if (error instanceof UsageError) return usage(io, command, error.message, json);
    const message =
      error instanceof CliFailure || error instanceof ExtensionError ? describeThrown(error) : `unexpected error: ${describeThrown(error)}`;
    io.stderr.write(`weft ${command.name}: error: ${message}\n`);
    if (!(error instanceof CliFailure) && !(error instanceof ExtensionError) && io.env['WEFT_DEBUG'] && error instanceof Error && error.stack) {
      io.stderr.write(`${error.stack}\n`);
    }
    if (json) io.stdout.write(toJson({ ok: false, exitCode: ExitCode.FAILURE, error: message }));
    return ExitCode.FAILURE;
  }
}

function usage(io: CliIo, command: Command | undefined, message: string, json: boolean): number {
  const who = command === undefined ? 'weft' : `weft ${command.name}`;
  io.stderr.write(`${who}: ${message}\nRun "${who} --help" for usage.\n`);
  if (json) io.stdout.write(toJson({ ok: false, exitCode: ExitCode.USAGE, error: message }));
  return ExitCode.USAGE;
}

function suggestCommand(name: string): string {
  return suggest(name, COMMANDS.map((c) => c.name), '');
}
