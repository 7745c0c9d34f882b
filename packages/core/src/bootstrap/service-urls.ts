import { networkInterfaces } from 'node:os';

import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { isConfigNotEmpty } from '../extension/activate.js';
import { splitCommaList } from '../extension/names.js';
import { URL, type ParameterValue } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import { RETURN_TYPES_KEY, returnTypesText } from '../service/type-text.js';
import { DEFAULT_BIND_IP, firstExternalIpv4 } from './service-address.js';
import type { CommonOptions } from './weft-application.js';
import { isSecretKey, maskUrlText } from '../common/mask-secrets.js';
import { TLS_FILE_KEYS } from '../transport/tls-keys.js';

/** Paths of local files (certificates, `@weft/filter-auth`'s key file): never registered. */
const LOCAL_FILE_KEYS: readonly string[] = [...TLS_FILE_KEYS, 'auth.keys-file'];

// How an application writes a service's URLs from export/refer options: the parameters, the direct provider
// URLs of a reference, the consumer's host, the provider URL as registered.

/** Keys Weft sets itself: options and overrides may not. */
const RESERVED_KEYS = new Set(['interface', 'side', 'application', 'methods', RETURN_TYPES_KEY]);

/**
 * Refuses a key Weft sets itself (`interface`, `side`, `application`, `methods`, `weft.returns`).
 * @throws `ERR_SPI_INVALID_PARAMETER`.
 * @internal
 */
export function assertNotReserved(key: string, where: string): void {
  if (RESERVED_KEYS.has(key)) {
    throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: parameter "${key}" is set by Weft and cannot be overridden.`);
  }
}

/**
 * The URL parameters of an export or a reference: Weft's own keys, the options, `extra`, then `parameters` and
 * `methods` (as `<method>.<key>`); empty values are left out.
 * @throws `ERR_SPI_INVALID_PARAMETER` for a reserved key or a method the service does not have.
 * @internal
 */
export function serviceParameters(
  service: ServiceDefinition,
  application: string,
  side: 'provider' | 'consumer',
  options: CommonOptions,
  extra: Record<string, ParameterValue | undefined>,
): Map<string, string> {
  const where = `${side === 'provider' ? 'export' : 'refer'}(${service.name})`;
  const out = new Map<string, string>();
  const put = (key: string, value: ParameterValue | undefined) => {
    if (value !== undefined && value !== '') out.set(key, String(value));
  };
  put('interface', service.name);
  put('application', application);
  put('side', side);
  put('methods', service.methodNames.join(','));
  put('version', options.version);
  put('group', options.group);
  put('timeout', options.timeout);
  if (side === 'provider') put('timestamp', Date.now());
  for (const [key, value] of Object.entries(extra)) put(key, value);
  for (const [key, value] of Object.entries(options.parameters ?? {})) {
    assertNotReserved(key, where);
    put(key, value);
  }
  for (const [method, params] of Object.entries(options.methods ?? {})) {
    if (service.getMethod(method) === undefined) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: "methods.${method}" names no method of ${service.name} (methods: ${service.methodNames.join(', ')}).`,
      );
    }
    for (const [key, value] of Object.entries(params)) put(`${method}.${key}`, value);
  }
  return out;
}

/**
 * The provider URLs of a reference without a registry: the in-process (`injvm`) one, or each of the `;`-separated
 * direct URLs with the consumer's parameters added.
 * @param checkKeys - reports the unknown keys of a direct URL.
 * @throws `ERR_SPI_INVALID_PARAMETER` for a direct URL that does not parse or has no protocol.
 * @internal
 */
export function providerUrls(
  service: ServiceDefinition,
  consumerUrl: URL,
  direct: string | undefined,
  where: string,
  checkKeys: (keys: Iterable<string>, where: string) => void,
  declared?: ReadonlySet<string>,
): URL[] {
  const inherited = new Map(consumerUrl.parameters);
  inherited.delete('side');
  const consumerParams = [...inherited];
  if (direct === undefined || direct.trim() === '') {
    return [new URL({ protocol: 'injvm', host: '127.0.0.1', path: service.name, parameters: [...consumerUrl.parameters] })];
  }
  return direct
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((text) => {
      let parsed: URL;
      try {
        parsed = URL.parse(text);
      } catch (error) {
        throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: url=${maskUrlText(text, declared)} is not a valid URL: ${maskUrlText((error as Error).message, declared)}`, {
          cause: error,
        });
      }
      if (parsed.protocol === '') {
        throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: url=${maskUrlText(text, declared)} has no protocol (e.g. tri://127.0.0.1:50051).`);
      }
      checkKeys(parsed.parameters.keys(), `${where}: url=${maskUrlText(text, declared)}`);
      const withPath = parsed.path === '' ? parsed.withPath(service.name) : parsed;
      return withPath.addParameters(new Map(consumerParams)).addParameter('side', 'consumer');
    });
}

/**
 * A filter option as a comma list.
 * @internal
 */
export function joinList(list: string | readonly string[] | undefined): string | undefined {
  if (list === undefined) return undefined;
  return typeof list === 'string' ? list : list.join(',');
}

/**
 * The consumer's address: the first non-internal IPv4 address (what port-less override rules name), else loopback.
 * @internal
 */
export function localHost(): string {
  try {
    return firstExternalIpv4(networkInterfaces()) ?? DEFAULT_BIND_IP;
  } catch {
    return DEFAULT_BIND_IP;
  }
}

/** The Dubbo protocol version Java Dubbo 2.7 and 3.x register (`dubbo=2.0.2`); the JS peers copy it into request bodies. */
export const DUBBO_PROTOCOL_VERSION = '2.0.2';

/**
 * The framework version written as `release` (ops tools show it where a Java provider shows `2.7.23` or `3.3.1`);
 * kept equal to `@weft/core`'s package version by a test.
 * @internal
 */
export const WEFT_RELEASE = 'weft-0.1.0';

/**
 * The provider URL as registered: the keys Dubbo 2.7 and 3.x providers write (`anyhost`, `application`, `deprecated`,
 * `dubbo`, `dynamic`, `generic`, `interface`, `methods` sorted, `pid`, `release`, `side`, `timestamp`), without the
 * local-only ones (`bind.ip`, `bind.port`, thread-pool keys, `ssl.*` certificate paths); a token is written as
 * `token=true` ("required"), never its value, and other secret keys are left out. With `service`, the declared
 * return types are added as `weft.returns` (see `returnTypesText`; left out when too long).
 * @internal
 */
export function registeredProviderUrl(url: URL, pid: number = process.pid, declared?: ReadonlySet<string>, service?: ServiceDefinition): URL {
  const methods = url.getParameter('methods');
  let cleaned = url
    .removeParameters('bind.ip', 'bind.port', 'threadname', 'threadpool', 'threads', 'queues', 'alive')
    .addParametersIfAbsent({ deprecated: 'false', dubbo: DUBBO_PROTOCOL_VERSION, dynamic: 'true', generic: 'false', pid, release: WEFT_RELEASE });
  // The registry says that a token is required, never the token (anyone who can read the registry could call);
  // other secrets and the local certificate paths are not written at all (ssl-enabled is: consumers need it).
  cleaned = cleaned.removeParameters(...LOCAL_FILE_KEYS, ...[...url.parameters.keys()].filter((key) => key !== 'token' && isSecretKey(key, declared)));
  if (isConfigNotEmpty(url.getParameter('token'))) cleaned = cleaned.addParameter('token', 'true');
  return withReturnTypes(methods ? cleaned.addParameter('methods', splitCommaList(methods).sort().join(',')) : cleaned, service);
}

/** `url` with the `weft.returns` of `service` (none without a service, or when nothing can be described). */
function withReturnTypes(url: URL, service: ServiceDefinition | undefined): URL {
  const text = service === undefined ? undefined : returnTypesText(service);
  return text === undefined ? url : url.addParameter(RETURN_TYPES_KEY, text);
}

/**
 * The consumer URL as registered under `consumers`: `category=consumers`, `check=false`, and the keys Dubbo consumers
 * write (`dubbo`, `pid`, `release`, `timestamp`), `methods` sorted; secrets (a reference's token, a signing secret)
 * and certificate paths are left out. With `service`, the declared return types are added as `weft.returns`.
 * @internal
 */
export function registeredConsumerUrl(url: URL, pid: number = process.pid, now: number = Date.now(), declared?: ReadonlySet<string>, service?: ServiceDefinition): URL {
  const methods = url.getParameter('methods');
  const registered = url
    .removeParameters(...LOCAL_FILE_KEYS, ...[...url.parameters.keys()].filter((key) => isSecretKey(key, declared)))
    .addParameters({ category: 'consumers', check: 'false' })
    .addParametersIfAbsent({ dubbo: DUBBO_PROTOCOL_VERSION, pid, release: WEFT_RELEASE, timestamp: now });
  return withReturnTypes(methods ? registered.addParameter('methods', splitCommaList(methods).sort().join(',')) : registered, service);
}
