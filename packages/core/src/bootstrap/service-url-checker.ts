import { safeLog, type Logger } from '../common/logger.js';
import { ConfigValidator } from '../config/config-validator.js';
import type { ParameterRegistry } from '../config/parameter-registry.js';
import { LoadBalance } from '../cluster/load-balance.js';
import type { ApplicationModel } from '../extension/application-model.js';
import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { splitCommaList } from '../extension/names.js';
import { Filter } from '../filter/filter.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import { tlsRequested } from '../transport/tls-keys.js';

/** What `requireExtension` needs of a loader. */
interface NamedExtensions {
  hasExtension(name: string): boolean;
  describeMissing(name: string): string;
  readonly point: { readonly id: string };
}

/**
 * Checks a service URL at export, refer and override time — unknown keys, typed values, extension names, the
 * activated `ConfigValidator`s — so that a bad value is reported with its key before the first call.
 *
 * @remarks Never runs per call. Messages start with `where` (`export(Greeter)`, `refer(Greeter): url=…`).
 * @internal
 */
export class ServiceUrlChecker {
  constructor(
    private readonly model: ApplicationModel,
    private readonly keys: ParameterRegistry,
    private readonly strict: boolean,
  ) {}

  /**
   * Reports URL keys nobody reads (warnings; errors in strict mode), naming the key, where it came from and the
   * closest known keys.
   * @throws `ERR_SPI_UNKNOWN_PARAMETER` in strict mode.
   */
  checkKeys(keys: Iterable<string>, service: ServiceDefinition, where: string): void {
    reportUnknownKeys(this.keys, this.strict, this.model.logger, keys, service.methodNames, where);
  }

  /**
   * Checks typed keys and extension names, naming the offending key.
   * @throws `ERR_SPI_INVALID_PARAMETER`, or what a `ConfigValidator` throws.
   */
  validate(url: URL, where: string, filterKey: string, service: ServiceDefinition, side: 'provider' | 'consumer'): void {
    const numeric = ['timeout', 'retries', 'weight', 'warmup', 'forks', 'tps', 'tps.interval', 'executes', 'actives'];
    const check = (key: string, read: () => unknown) => {
      try {
        read();
      } catch (error) {
        throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: ${(error as Error).message}`, { cause: error });
      }
      void key;
    };
    // The TLS keys must make sense together; whether the protocol speaks TLS is checked where every export and refer
    // passes (ProtocolFilterWrapper), since a consumer URL names no protocol yet.
    tlsRequested(url, side, where);
    for (const key of numeric) check(key, () => url.getParameter(key, 0));
    for (const method of service.methodNames) {
      for (const key of numeric) check(`${method}.${key}`, () => url.getMethodParameter(method, key, 0));
    }
    const filters = this.model.getExtensionLoader(Filter);
    const list = url.getParameter(filterKey);
    if (list !== undefined && list !== '') {
      for (const name of splitCommaList(list)) {
        if (name === '' || name === 'default' || name === '-default') continue;
        if (name.startsWith('-')) {
          // Dubbo ignores removing a filter that is not installed; a typo there must not pass silently.
          const removed = name.slice(1);
          if (!filters.hasExtension(removed)) {
            safeLog(this.model.logger, 'warn', `${where}: filter=${name} removes "${removed}", which is not installed, so it has no effect. ${filters.describeMissing(removed)}`);
          }
          continue;
        }
        this.requireExtension(filters, name, where, 'filter');
      }
    }
    const balances = this.model.getExtensionLoader(LoadBalance);
    const lb = url.getParameter('loadbalance');
    if (lb !== undefined && lb !== '') this.requireExtension(balances, lb, where, 'loadbalance');
    for (const method of service.methodNames) {
      const perMethod = url.getMethodParameterStrict(method, 'loadbalance');
      if (perMethod !== undefined && perMethod !== '') this.requireExtension(balances, perMethod, where, `${method}.loadbalance`);
    }
    for (const validator of this.model.getExtensionLoader(ConfigValidator).getActivateExtensions(url, undefined, side)) {
      validator.validate(url, service, where);
    }
  }

  /**
   * Checks that `key=name` names an extension of `loader`'s point.
   * @throws `ERR_SPI_INVALID_PARAMETER` with what is available and the closest name.
   */
  requireExtension(loader: NamedExtensions, name: string, where: string, key: string): void {
    if (loader.hasExtension(name)) return;
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `${where}: ${key}=${name} names no ${loader.point.id} extension. ${loader.describeMissing(name)}`,
    );
  }
}

/**
 * Warns about (or, strict, throws for) the unknown keys among `keys`.
 * @internal
 */
export function reportUnknownKeys(
  registry: ParameterRegistry,
  strict: boolean,
  logger: Logger,
  keys: Iterable<string>,
  methods: readonly string[],
  where: string,
): void {
  const problems = registry.check(keys, methods, where);
  if (problems.length === 0) return;
  if (strict) {
    throw new ExtensionError(
      ExtensionErrorCode.UNKNOWN_PARAMETER,
      `${problems.join('; ')} (strict mode: unknown parameters are errors; fix the key, install the package that reads it, ` +
        'or mark your own keys with the x- prefix or parameters.declare)',
    );
  }
  for (const problem of problems) safeLog(logger, 'warn', problem);
}
