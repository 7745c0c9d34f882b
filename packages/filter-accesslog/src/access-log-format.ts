import { describeType, RpcError, type Invocation, type TypeDescriptor } from '@weft/core';

import type { AccessLogOutcome } from './access-log-keys.js';

const LINE_BREAKS = /\r\n|\r|\n/g;

/** Replaces line breaks so that a value can never split a log line. @internal */
export function oneLine(text: string): string {
  return text.includes('\n') || text.includes('\r') ? text.replace(LINE_BREAKS, '\\n') : text;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

function pad3(n: number): string {
  return n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n);
}

/**
 * Formats epoch milliseconds as Dubbo 3.x does, `yyyy-MM-dd HH:mm:ss.SSSSS` in the local time zone: Java's
 * `DateTimeFormatter` pattern `SSSSS` is the fraction of the second on five digits, and a `Date` has millisecond
 * precision, so the last two digits are always `00`. The date and time of the current second are cached.
 * @internal
 */
export class DubboTimeFormatter {
  private second = Number.NaN;
  private prefix = '';

  format(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      const d = new Date(second * 1000);
      this.prefix =
        `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ` +
        `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.`;
      this.second = second;
    }
    return `${this.prefix}${pad3(ms - second * 1000)}00`;
  }
}

/** Formats epoch milliseconds as ISO 8601 in UTC (`Date.toISOString`), caching the current second. @internal */
export class IsoTimeFormatter {
  private second = Number.NaN;
  private prefix = '';

  format(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      this.prefix = new Date(second * 1000).toISOString().slice(0, 20);
      this.second = second;
    }
    return `${this.prefix}${pad3(ms - second * 1000)}Z`;
  }
}

function runtimeType(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'boolean':
      return 'Boolean';
    case 'bigint':
      return 'BigInt';
    case 'function':
      return 'Function';
    case 'object': {
      if (value === null) return 'Object';
      if (Array.isArray(value)) return 'Array';
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      return typeof name === 'string' && name !== '' ? name : 'Object';
    }
    default:
      return 'Object';
  }
}

/** Declared argument type names of a method (`String`, `User`, `Number[]`), or undefined when not declared. @internal */
export function declaredTypes(invocation: Invocation): readonly string[] | undefined {
  return invocation.method?.args?.map((type: TypeDescriptor) => describeType(type));
}

/** The runtime types of the call's arguments (for methods without declared argument types). @internal */
export function runtimeTypes(invocation: Invocation): readonly string[] {
  return invocation.args.map(runtimeType);
}

function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * The arguments as JSON (BigInt as strings). Arguments JSON cannot represent (cycles, throwing `toJSON`) fall back to
 * Java's `Arrays.toString` shape, `[a, b]`, as Dubbo does; `json` tells which one it is.
 * @internal
 */
export function argumentsJson(args: readonly unknown[]): { readonly text: string; readonly json: boolean } {
  try {
    // Without a replacer first: a replacer takes JSON.stringify off its fast path.
    return { text: JSON.stringify(args), json: true };
  } catch {
    // a BigInt, a cycle or a throwing toJSON: try again with BigInts as strings
  }
  try {
    return { text: JSON.stringify(args, bigintAsString), json: true };
  } catch {
    // fall through to the textual form
  }
  let text: string;
  try {
    text = `[${args.map((a) => String(a)).join(', ')}]`;
  } catch {
    text = `[${args.length} argument(s) that cannot be rendered]`;
  }
  return { text: oneLine(text), json: false };
}

/** `<name>: <message>` of an error; `RpcError(<code>): <message>` for an `RpcError`. @internal */
export function describeFailure(error: unknown): string {
  try {
    if (error instanceof RpcError) return oneLine(`RpcError(${error.code}): ${error.message}`);
    if (error instanceof Error) return oneLine(`${error.name}: ${error.message}`);
    return oneLine(String(error));
  } catch {
    return 'unprintable error';
  }
}

/** What the formatters need about one completed call. @internal */
export interface CallRecord {
  readonly startMs: number;
  readonly endMs: number;
  readonly elapsedMs: number;
  readonly remote: string;
  readonly local: string;
  readonly service: string;
  readonly version: string;
  readonly group: string;
  /** `"service":…,"version":…,"group":…` of the JSON format (constant per service, computed once). */
  readonly serviceJson: string;
  readonly method: string;
  readonly types: readonly string[];
  readonly args: { readonly text: string; readonly json: boolean };
  readonly argCount: number;
  readonly outcome: AccessLogOutcome;
  readonly error: string | undefined;
}

/**
 * Dubbo 3.x's line: `[<in>] -> [<out>] <remote> -> <local> - [<group>/]<service>[:<version>] <method>(<types>) [<args JSON>]`.
 * @internal
 */
export function formatText(record: CallRecord, time: DubboTimeFormatter): string {
  let line = `[${time.format(record.startMs)}] -> [${time.format(record.endMs)}] ${record.remote} -> ${record.local} - `;
  if (record.group !== '') line += `${record.group}/`;
  line += record.service;
  if (record.version !== '') line += `:${record.version}`;
  line += ` ${record.method}(${record.types.join(',')}) `;
  if (record.argCount > 0) line += record.args.text;
  return line;
}

/** The `service`, `version` and `group` fields of a JSON line. @internal */
export function serviceJson(service: string, version: string, group: string): string {
  const str = JSON.stringify;
  return `"service":${str(service)},"version":${version === '' ? 'null' : str(version)},"group":${group === '' ? 'null' : str(group)}`;
}

/** One JSON line, fields in the order of `AccessLogJsonRecord`. @internal */
export function formatJson(record: CallRecord, time: IsoTimeFormatter): string {
  const str = JSON.stringify;
  return (
    `{"timestamp":"${time.format(record.startMs)}","remote":${str(record.remote)},"local":${str(record.local)},` +
    `${record.serviceJson},"method":${str(record.method)},"argumentTypes":${str(record.types)},` +
    `"arguments":${record.args.json ? record.args.text : str(record.args.text)},` +
    `"elapsedMs":${Math.round(record.elapsedMs * 1000) / 1000},"outcome":"${record.outcome}",` +
    `"error":${record.error === undefined ? 'null' : str(record.error)}}`
  );
}
