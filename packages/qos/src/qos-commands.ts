import type { WeftApplication } from '@weft/core';

import { renderTable } from './qos-table.js';

/** Who may run a command (Dubbo's `PermissionLevel`): loopback callers are `PRIVATE`, whitelisted `PROTECTED`. */
export const PermissionLevel = { NONE: 0, PUBLIC: 1, PROTECTED: 2, PRIVATE: 3 } as const;

/** A command's answer: HTTP status, text body, and the same as JSON. */
export interface QosAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: unknown;
}

/** One QoS command. @internal */
export interface QosCommand {
  readonly name: string;
  readonly level: number;
  readonly summary: string;
  readonly example: string;
  run(app: WeftApplication, args: readonly string[]): Promise<QosAnswer> | QosAnswer;
}

const ok = (text: string, json: unknown = text): QosAnswer => ({ status: 200, text, json });

/** The longest `online`/`offline` pattern accepted. */
const MAX_PATTERN = 256;
/** A quantified group that itself contains a quantifier (`(a+)+`): exponential backtracking, refused. */
const NESTED_QUANTIFIER = /\([^)]*[+*}][^)]*\)[+*{?]/;

/** A refused argument: answered 400 with the reason. */
export class QosArgumentError extends Error {}

/**
 * Dubbo's `online`/`offline` argument: a regular expression matched against the whole service key. Patterns come
 * from the network: long ones and nested quantifiers (catastrophic backtracking) are refused.
 */
function keyMatcher(pattern: string | undefined): (key: string) => boolean {
  const source = pattern === undefined || pattern === '' ? '.*' : pattern;
  if (source.length > MAX_PATTERN) throw new QosArgumentError(`the service pattern is ${source.length} characters long; the limit is ${MAX_PATTERN}`);
  if (NESTED_QUANTIFIER.test(source)) throw new QosArgumentError(`the service pattern ${JSON.stringify(source)} nests quantifiers; write it without a repeated group that repeats inside`);
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${source})$`);
  } catch (error) {
    throw new QosArgumentError(`the service pattern ${JSON.stringify(source)} is not a regular expression: ${(error as Error).message}`);
  }
  return (key) => regex.test(key);
}

function probe(value: boolean): QosAnswer {
  return { status: value ? 200 : 503, text: String(value), json: value };
}

/** `ls`: what is exported (PUB: registered per registry) and referred (NUM: providers per registry). */
function ls(app: WeftApplication): QosAnswer {
  const status = app.serviceStatus();
  const registry = status.registry;
  const providers = status.providers.map((p) => [p.serviceKey, p.registrable && registry !== undefined ? `${registry}-I(${p.registered ? 'Y' : 'N'})` : '']);
  const consumers = status.consumers.map((c) => [c.serviceKey, c.fromRegistry && registry !== undefined ? `${registry}-I(${c.providers})` : '-']);
  const text =
    `As Provider side:\n${renderTable(['Provider Service Name', 'PUB'], providers)}` +
    `As Consumer side:\n${renderTable(['Consumer Service Name', 'NUM'], consumers)}`;
  return ok(text, {
    registry: registry ?? null,
    providers: status.providers.map((p) => ({ service: p.serviceKey, registrable: p.registrable, registered: p.registered, url: p.url.toIdentityString() })),
    consumers: status.consumers.map((c) => ({ service: c.serviceKey, fromRegistry: c.fromRegistry, providers: c.providers })),
  });
}

async function onOff(app: WeftApplication, args: readonly string[], online: boolean): Promise<QosAnswer> {
  const matches = keyMatcher(args[0]);
  const known = app.serviceStatus().providers.some((p) => p.registrable && matches(p.serviceKey));
  if (!known) return ok('service not found', { ok: false, changed: 0, message: 'service not found' });
  const changed = online ? await app.online(matches) : await app.offline(matches);
  return ok('OK', { ok: true, changed });
}

/** The commands, by name. @internal */
export const QOS_COMMANDS: ReadonlyMap<string, QosCommand> = new Map(
  (
    [
      { name: 'help', level: PermissionLevel.PROTECTED, summary: 'help command', example: 'help [command]', run: () => ok('') },
      { name: 'ls', level: PermissionLevel.PROTECTED, summary: 'ls service', example: 'ls', run: (app) => ls(app) },
      {
        name: 'online',
        level: PermissionLevel.PROTECTED,
        summary: 'online app addresses',
        example: 'online [service key regex]',
        run: (app, args) => onOff(app, args, true),
      },
      {
        name: 'offline',
        level: PermissionLevel.PROTECTED,
        summary: 'offline app addresses',
        example: 'offline [service key regex]',
        run: (app, args) => onOff(app, args, false),
      },
      { name: 'ready', level: PermissionLevel.PUBLIC, summary: 'Judge if application or service is ready to serve', example: 'ready', run: (app) => probe(app.isReady()) },
      { name: 'live', level: PermissionLevel.PUBLIC, summary: 'Judge if service is alive', example: 'live', run: () => probe(true) },
      { name: 'startup', level: PermissionLevel.PUBLIC, summary: 'Judge if service has started', example: 'startup', run: () => probe(true) },
    ] satisfies QosCommand[]
  ).map((command) => [command.name, command]),
);

/** `help` (every command and its summary) and `help <command>` (its usage), as tables. @internal */
export function helpText(command: string | undefined): QosAnswer {
  if (command === undefined || command === '') {
    const rows = [...QOS_COMMANDS.values()].map((c) => [c.name, c.summary]);
    return ok(renderTable(['COMMAND NAME', 'COMMAND DESC'], rows), [...QOS_COMMANDS.values()].map((c) => ({ name: c.name, summary: c.summary })));
  }
  const found = QOS_COMMANDS.get(command);
  if (found === undefined) return ok(`no such command:${command}`, { error: `no such command:${command}` });
  return ok(renderTable(['COMMAND NAME', 'EXAMPLE'], [[found.name, found.example]]), { name: found.name, example: found.example });
}
