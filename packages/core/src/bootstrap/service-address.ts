import type { NetworkInterfaceInfo } from 'node:os';

import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';

/**
 * The environment an application reads its addresses from (`process.env` unless one is given at start).
 *
 * @example
 * ```ts
 * const env: AddressEnvironment = { DUBBO_IP_TO_REGISTRY: '10.0.0.5' };
 * ```
 */
export type AddressEnvironment = Readonly<Record<string, string | undefined>>;

/** What an export asks for: the registered `host`/`port` and the listening `bind.ip`/`bind.port`, each optional. */
export interface ServiceAddressRequest {
  /** The protocol name (`tri`): `TRI_DUBBO_IP_TO_REGISTRY` and friends are read first. */
  readonly protocol: string;
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly bindIp?: string | undefined;
  readonly bindPort?: number | undefined;
  /** The protocol's default port. */
  readonly defaultPort: number;
}

/** Where a provider listens and what it registers. */
export interface ServiceAddress {
  /** The address registered (the URL's host): never a wildcard. */
  readonly host: string;
  /** The port registered (the URL's port). */
  readonly port: number;
  /** The address the server listens on (`bind.ip`). */
  readonly bindIp: string;
  /** The port the server listens on (`bind.port`). */
  readonly bindPort: number;
  /** Whether it listens on every address (`0.0.0.0`, `::`): Dubbo's `anyhost`. */
  readonly anyhost: boolean;
  /** Set when the registered address fell back to loopback: why (to log). */
  readonly warning?: string;
}

/** The listening address when none is configured: loopback (Dubbo binds every address; Weft does not by default). */
export const DEFAULT_BIND_IP = '127.0.0.1';

/** Whether an address means "every address" (a listening address only, never one to register). */
export function isWildcardAddress(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '[::]' || address === '::0' || address === '';
}

/**
 * Resolves where a provider listens and what it registers, Dubbo's way: `bind.ip`/`bind.port` are where the server
 * listens, `host`/`port` what consumers are told.
 *
 * @remarks
 * | | first of |
 * | --- | --- |
 * | listen address | env `DUBBO_IP_TO_BIND`, `bind.ip`, `host`, `127.0.0.1` |
 * | listen port | env `DUBBO_PORT_TO_BIND`, `bind.port`, `port`, the protocol's default |
 * | registered address | env `DUBBO_IP_TO_REGISTRY`, `host` (unless a wildcard), the listen address (unless a wildcard), the first non-internal IPv4 address of `interfaces`, else `127.0.0.1` with a warning |
 * | registered port | env `DUBBO_PORT_TO_REGISTRY`, `port`, the listen port |
 *
 * Each env key is read as `<PROTOCOL>_DUBBO_…` (e.g. `TRI_DUBBO_IP_TO_REGISTRY`) first, then `DUBBO_…` or its alias
 * `WEFT_…` (both set to different values is an error). A wildcard (`0.0.0.0`, `::`) is never registered.
 *
 * @example
 * ```ts
 * resolveServiceAddress({ protocol: 'tri', host: '0.0.0.0', defaultPort: 50051 }, {}, networkInterfaces());
 * // { host: '10.0.0.5', port: 50051, bindIp: '0.0.0.0', bindPort: 50051, anyhost: true }
 * ```
 * @throws `ERR_SPI_INVALID_PARAMETER` for an env value that is not an address or a port, naming the variable.
 */
export function resolveServiceAddress(
  request: ServiceAddressRequest,
  env: AddressEnvironment,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>,
): ServiceAddress {
  const read = (name: string) => readEnv(env, request.protocol, name);
  const envBindIp = read('IP_TO_BIND');
  const envBindPort = port(read('PORT_TO_BIND'));
  const envHost = read('IP_TO_REGISTRY');
  const envPort = port(read('PORT_TO_REGISTRY'));
  if (envHost !== undefined && isWildcardAddress(envHost.value)) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `${envHost.name}=${envHost.value} is not an address consumers can reach; set it to this host's address (or unset it).`,
    );
  }
  const host = blankToUndefined(request.host);
  const bindIp = envBindIp?.value ?? blankToUndefined(request.bindIp) ?? host ?? DEFAULT_BIND_IP;
  const givenPort = request.port !== undefined && request.port > 0 ? request.port : undefined;
  const bindPort = envBindPort ?? positive(request.bindPort) ?? givenPort ?? request.defaultPort;
  const anyhost = isWildcardAddress(bindIp);
  let registered = envHost?.value ?? (host !== undefined && !isWildcardAddress(host) ? host : undefined) ?? (anyhost ? undefined : bindIp);
  let warning: string | undefined;
  if (registered === undefined) {
    registered = firstExternalIpv4(interfaces);
    if (registered === undefined) {
      registered = DEFAULT_BIND_IP;
      warning =
        `listening on ${bindIp} but no non-loopback IPv4 interface was found: registering ${DEFAULT_BIND_IP}, which only this machine ` +
        'can reach. Set host (or DUBBO_IP_TO_REGISTRY) to the address consumers should use.';
    }
  }
  const result = { host: registered, port: envPort ?? givenPort ?? bindPort, bindIp: unbracket(bindIp), bindPort, anyhost };
  return warning === undefined ? result : { ...result, warning };
}

/** The first non-internal IPv4 address of the machine's interfaces. */
export function firstExternalIpv4(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string | undefined {
  for (const addresses of Object.values(interfaces)) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) return address.address;
    }
  }
  return undefined;
}

interface EnvValue {
  readonly name: string;
  readonly value: string;
}

function readEnv(env: AddressEnvironment, protocol: string, name: string): EnvValue | undefined {
  const specific = `${protocol.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_DUBBO_${name}`;
  const own = blankToUndefined(env[specific]);
  if (own !== undefined) return { name: specific, value: own };
  const dubbo = blankToUndefined(env[`DUBBO_${name}`]);
  const weft = blankToUndefined(env[`WEFT_${name}`]);
  if (dubbo !== undefined && weft !== undefined && dubbo !== weft) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `DUBBO_${name}=${dubbo} and WEFT_${name}=${weft} disagree; set one of them.`,
    );
  }
  if (dubbo !== undefined) return { name: `DUBBO_${name}`, value: dubbo };
  return weft === undefined ? undefined : { name: `WEFT_${name}`, value: weft };
}

function port(value: EnvValue | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.value);
  if (!/^\d+$/.test(value.value) || n < 1 || n > 65535) {
    throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${value.name}=${value.value} is not a port (1-65535).`);
  }
  return n;
}

function positive(n: number | undefined): number | undefined {
  return n !== undefined && n > 0 ? n : undefined;
}

function blankToUndefined(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function unbracket(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}
