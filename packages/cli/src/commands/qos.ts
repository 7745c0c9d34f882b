import { request } from 'node:http';

import { booleanFlag, integerFlag, stringFlag, type ParsedArgs } from '../args.js';
import { HELP_OPTION, JSON_OPTION, type Command, type CommandContext } from '../command.js';
import { CliFailure, ExitCode, UsageError } from '../io.js';

/** The commands a QoS server (`@weft/qos`) answers. */
const QOS_COMMANDS = ['live', 'ready', 'startup', 'ls', 'online', 'offline', 'help'] as const;

/** How long to wait for the QoS server. */
const TIMEOUT_MS = 5000;

function get(host: string, port: number, path: string, json: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, method: 'GET', headers: json ? { accept: 'application/json' } : {}, timeout: TIMEOUT_MS }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > 16 * 1024 * 1024) req.destroy(new Error('the answer is larger than 16 MiB'));
        else chunks.push(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

async function run(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  const [command, argument, ...rest] = args.positionals;
  if (command === undefined) throw new UsageError(`missing the QoS command: one of ${QOS_COMMANDS.join(', ')}`);
  if (!(QOS_COMMANDS as readonly string[]).includes(command)) throw new UsageError(`unknown QoS command "${command}": one of ${QOS_COMMANDS.join(', ')}`);
  if (rest.length > 0) throw new UsageError(`${command} takes at most one argument, got ${rest.length + 1}`);
  const host = stringFlag(args, 'host') ?? '127.0.0.1';
  const port = integerFlag(args, 'port', 22222);
  const json = booleanFlag(args, 'json');
  const path = `/${command}${argument === undefined ? '' : `/${encodeURIComponent(argument)}`}`;
  let answer: { status: number; body: string };
  try {
    answer = await get(host, port, path, json);
  } catch (error) {
    throw new CliFailure(`cannot reach the QoS server at ${host}:${port}: ${(error as Error).message}. Is the application running with @weft/qos installed (qos.port)?`);
  }
  if (answer.status === 404) throw new CliFailure(`the QoS server at ${host}:${port} does not know "${command}"`);
  if (answer.status === 403) throw new CliFailure(`the QoS server at ${host}:${port} refused "${command}" for this caller (see qos.accept.foreign.ip and its whitelist)`);
  ctx.out(answer.body.endsWith('\n') ? answer.body : `${answer.body}\n`);
  // Probes answer 503 false: a failure exit code, so scripts can use `weft qos ready` directly.
  return answer.status >= 200 && answer.status < 300 ? ExitCode.OK : ExitCode.FAILURE;
}

/** `weft qos`. @internal */
export const qosCommand: Command = {
  name: 'qos',
  summary: "run a QoS command (probes, ls, online/offline) on a running application's @weft/qos server",
  usage: ['qos <live|ready|startup|ls|online|offline|help> [argument] [--port <port>] [--host <host>] [--json]'],
  description: `
Sends the command to the QoS server of a running application (@weft/qos, 127.0.0.1:22222 by default) and prints
its answer. online/offline take an optional service-key regular expression (the whole key; default: every
provider): offline takes matching providers out of the registry without stopping them, online puts them back.`,
  options: [
    { name: 'port', kind: 'string', value: '<port>', description: 'The QoS port (qos.port). Default: 22222.' },
    { name: 'host', kind: 'string', value: '<host>', description: 'The QoS host. Default: 127.0.0.1.' },
    JSON_OPTION,
    HELP_OPTION,
  ],
  examples: ['weft qos ready', '# take one service out of rotation, then back', 'weft qos offline org.acme.Greeter', 'weft qos online org.acme.Greeter', 'weft qos ls --port 22223 --json'],
  exitCodes: ['0  the command succeeded (a probe answered true)', '1  a probe answered false, the command failed, or the server is unreachable', '2  the command line is wrong'],
  run,
};
