import type * as AdminModule from '@weft/admin';

import { booleanFlag, integerFlag, listFlag, stringFlag, type ParsedArgs } from '../args.js';
import { HELP_OPTION, type Command, type CommandContext } from '../command.js';
import { CliFailure, describeThrown, ExitCode, UsageError } from '../io.js';

/** Resolves on the first SIGINT or SIGTERM (the listeners are removed then). */
function signalled(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

async function run(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`admin takes no arguments (got ${args.positionals.join(' ')})`);
  const registry = stringFlag(args, 'registry') ?? ctx.io.env['WEFT_REGISTRY'];
  if (registry === undefined || registry.trim() === '') throw new UsageError('missing --registry <url> (or the WEFT_REGISTRY environment variable): e.g. zookeeper://127.0.0.1:2181 or embedded:///var/tmp/weft-registry');
  const port = integerFlag(args, 'port', 8088);
  if (port < 0 || port > 65535) throw new UsageError(`--port ${port}: expected 0 … 65535 (0 picks a free port)`);
  const envToken = ctx.io.env['WEFT_ADMIN_TOKEN'];
  const token = stringFlag(args, 'token') ?? (envToken !== undefined && envToken !== '' ? envToken : undefined);
  const metrics = listFlag(args, 'metrics').flatMap((m) => m.split(',')).map((m) => m.trim()).filter((m) => m !== '');
  for (const endpoint of metrics) {
    if (!/^https?:\/\/[^/\s]+/.test(endpoint)) throw new UsageError(`--metrics ${endpoint}: expected an http:// URL such as http://127.0.0.1:20888/metrics`);
  }
  const { startAdmin } = await loadAdmin();
  let admin;
  try {
    admin = await startAdmin({
      registry,
      host: stringFlag(args, 'host') ?? '127.0.0.1',
      port,
      token,
      allowRemote: booleanFlag(args, 'allow-remote'),
      metrics,
      auditFile: stringFlag(args, 'audit-file'),
    });
  } catch (error) {
    throw new CliFailure(describeThrown(error).replace(/^weft admin: /, ''));
  }
  ctx.out(`Weft admin on ${admin.url}${admin.generatedToken ? ` (token: ${admin.token})` : ''}\n`);
  await (ctx.io.stop ?? signalled());
  await admin.close();
  return ExitCode.OK;
}

/**
 * `@weft/admin`, loaded when `weft admin` runs: the console is an optional peer of the CLI (its UI and scraper are
 * not needed for the other commands). The name is fixed here, never taken from configuration.
 */
async function loadAdmin(): Promise<typeof AdminModule> {
  try {
    return await import('@weft/admin');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes('@weft/admin')) {
      throw new CliFailure('weft admin needs the @weft/admin package (the console is not installed with the CLI): npm install --save-dev @weft/admin');
    }
    throw error;
  }
}

/** `weft admin`. @internal */
export const adminCommand: Command = {
  name: 'admin',
  summary: 'start the web console: find services, force mocks, drain providers, route, watch metrics',
  usage: ['admin --registry <url> [--host <host>] [--port <port>] [--token <token>] [--allow-remote] [--metrics <url,url>] [--audit-file <path>]'],
  description: `
Starts @weft/admin, the web console and its JSON API, over one registry (zookeeper://host:port or
embedded:///dir), and runs until interrupted (Ctrl-C, SIGTERM). It prints the address to open, and the login token
when it generated one. Every action writes the rules weft override and weft route write, validated the same way,
and shows them first (the registry nodes, zkCli commands and the weft command line) until you confirm.

The token is --token, else $WEFT_ADMIN_TOKEN, else a random one printed at start (prefer the environment
variable: a command line is visible to every user of the machine). The console listens on 127.0.0.1; a
non-loopback --host needs --allow-remote (put TLS in front of it). Metrics are scraped every 5 s from the --metrics
endpoints and from registrations that carry metrics.port.`,
  options: [
    { name: 'registry', kind: 'string', value: '<url>', description: 'Registry URL. Default: $WEFT_REGISTRY.' },
    { name: 'host', kind: 'string', value: '<host>', description: 'Address to listen on. Default: 127.0.0.1.' },
    { name: 'port', kind: 'string', value: '<port>', description: 'Port to listen on (0: a free one). Default: 8088.' },
    { name: 'token', kind: 'string', value: '<token>', description: 'The login token. Default: $WEFT_ADMIN_TOKEN, else generated and printed.' },
    { name: 'allow-remote', kind: 'boolean', description: 'Allow a non-loopback --host.' },
    { name: 'metrics', kind: 'list', value: '<url,url>', description: 'Prometheus endpoints to scrape (http://host:port/metrics).' },
    { name: 'audit-file', kind: 'string', value: '<path>', description: 'Append every applied action to this file (JSON lines).' },
    HELP_OPTION,
  ],
  examples: [
    'weft admin --registry zookeeper://127.0.0.1:2181',
    'WEFT_ADMIN_TOKEN=… weft admin --registry embedded:///var/tmp/weft-registry --port 9090 --metrics http://127.0.0.1:20888/metrics',
  ],
  exitCodes: ['0  stopped by SIGINT/SIGTERM', '1  cannot start: registry client missing, port in use, non-loopback host without --allow-remote', '2  usage error: missing --registry, bad --port or --metrics'],
  run,
};
