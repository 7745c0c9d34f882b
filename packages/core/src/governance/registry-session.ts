import { Logger } from '../common/logger.js';
import { maskedIdentity } from '../common/mask-secrets.js';
import { ConfigValidator } from '../config/config-validator.js';
import type { ApplicationModel } from '../extension/application-model.js';
import { FrameworkModel } from '../extension/framework-model.js';
import type { ManifestIndex } from '../extension/discovery.js';
import { RegistryFactory } from '../registry/registry-factory.js';
import type { Registry } from '../registry/registry.js';
import { RouterFactory } from '../cluster/router.js';
import { URL } from '../rpc/url.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { defineService } from '../service/service-definition.js';
import type { Invoker } from '../rpc/invoker.js';

/** An error's message, with its code when the message does not already name it. */
function describeThrown(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && code !== '' && !error.message.includes(code) ? `${error.message} [${code}]` : error.message;
  }
  return String(error);
}

/** Keeps what the framework logs, so failures can say what the registry client reported (bounded). */
class CollectingLogger extends Logger {
  readonly messages: string[] = [];
  debug(): void {}
  info(): void {}
  warn(message: string, error?: unknown): void {
    this.messages.push(error === undefined ? message : `${message}: ${describeThrown(error)}`);
    if (this.messages.length > 50) this.messages.shift();
  }
  error(message: string, error?: unknown): void {
    this.warn(message, error);
  }
}

/**
 * Races `work` against a timer; on timeout rejects with the error `onTimeout` builds.
 *
 * @remarks The timer is always cleared; a late rejection of `work` is swallowed.
 * @example
 * ```ts
 * const services = await withDeadline(registry.listServices(), 5000, () => new Error('no answer within 5 s'));
 * ```
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  work.catch(() => undefined);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Options of {@link RegistrySession.open}. */
export interface RegistrySessionOptions {
  /** The tool's own package directory: discovery starts there, so only the tool's dependencies are found. */
  readonly root: string;
  /** Milliseconds every registry operation may take. */
  readonly timeout: number;
  /** The application name the session runs as (default `weft-tool`). */
  readonly application?: string;
  /** Builds the error thrown on failure (default: an `RpcError` with code `network`). */
  readonly fail?: (message: string) => Error;
}

/**
 * A registry client opened the way an application opens one — through the `weft.registry.RegistryFactory`
 * extension named by the registry URL's protocol — plus the `ConfigValidator`s and routers that judge rules.
 * Shared by the tools that govern a registry (`weft override`, `weft route`, `@weft/admin`).
 *
 * @remarks The framework is created from the tool's own package directory (`root`), so what it finds are the
 * registry clients, validators and routers the tool depends on, never code of an application. No registry package
 * is imported directly. Every operation runs under `timeout`; failures name the registry and what its client
 * logged. Nothing is cached between calls: a tool must never answer from a stale view.
 * @example
 * ```ts
 * const session = await RegistrySession.open(URL.parse('zookeeper://127.0.0.1:2181'), { root: packageDir, timeout: 5000 });
 * try {
 *   const services = await session.call('listing the services', () => session.registry.listServices());
 * } finally {
 *   await session.close();
 * }
 * ```
 */
export class RegistrySession {
  private constructor(
    private readonly framework: FrameworkModel,
    private readonly app: ApplicationModel,
    private readonly logger: CollectingLogger,
    private readonly fail: (message: string) => Error,
    /** The registry URL as given. */
    readonly url: URL,
    /** The client. */
    readonly registry: Registry,
    /** Milliseconds every registry operation may take. */
    readonly timeout: number,
  ) {}

  /** What discovery found from the tool's own package (registry clients, validators, their declared keys). */
  get index(): ManifestIndex {
    return this.app.index;
  }

  /** `protocol://host:port/path` of the registry, for messages (secrets masked). */
  get address(): string {
    return maskedIdentity(this.url);
  }

  /** The application model of the session (the tool's own extensions). */
  get model(): ApplicationModel {
    return this.app;
  }

  /**
   * Opens a client for `registryUrl`: `check=true`, `timeout=<timeout>` (unless given) and `file-cache=false`
   * (a tool must never answer from a stale cache) are added to the URL.
   * @throws the `fail` error when no installed registry client speaks the protocol, or the client cannot be created.
   */
  static async open(registryUrl: URL, options: RegistrySessionOptions): Promise<RegistrySession> {
    const fail = options.fail ?? ((message: string) => new RpcError(RpcErrorCode.NETWORK, message));
    const timeout = options.timeout;
    const logger = new CollectingLogger();
    const framework = FrameworkModel.create({ root: options.root, logger });
    try {
      const app = framework.newApplication(options.application ?? 'weft-tool');
      let loadError: unknown;
      try {
        await app.loadExtensions(RegistryFactory);
      } catch (error) {
        loadError = error;
      }
      const factories = app.getExtensionLoader(RegistryFactory);
      const protocol = registryUrl.protocol;
      if (!factories.hasExtension(protocol)) {
        const failed = loadError !== undefined && describeThrown(loadError).includes(`"${protocol}"`) ? ` Its client failed to load: ${describeThrown(loadError)}` : '';
        throw fail(
          `no registry client for ${protocol}:// is installed with weft (available: ${factories.getSupportedExtensions().join(', ') || 'none'}).${failed} ` +
            `Registry clients are weft.registry.RegistryFactory extensions: @weft/registry-embedded (embedded://), @weft/registry-zookeeper (zookeeper://).`,
        );
      }
      const url = registryUrl.addParametersIfAbsent({ check: 'true', timeout: String(timeout) }).addParameter('file-cache', 'false');
      let registry: Registry;
      try {
        registry = factories.getExtension(protocol).getRegistry(url);
      } catch (error) {
        throw fail(`cannot reach registry ${maskedIdentity(registryUrl)}: ${describeThrown(error)}`);
      }
      return new RegistrySession(framework, app, logger, fail, registryUrl, registry, timeout);
    } catch (error) {
      await withDeadline(framework.destroy(), 2000, () => new Error('closing')).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Runs a registry operation under the session's deadline; failures name the registry and what it reported.
   * @throws the `fail` error
   */
  async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    let timedOut = false;
    try {
      return await withDeadline(Promise.resolve().then(work), this.timeout, () => {
        timedOut = true;
        return this.fail(`cannot reach registry ${this.address}: no answer within ${this.timeout} ms while ${what}${this.reported()}. Is it running and reachable? (--timeout <ms> waits longer)`);
      });
    } catch (error) {
      if (timedOut) throw error;
      throw this.fail(`cannot reach registry ${this.address} while ${what}: ${describeThrown(error)}${this.reported()}`);
    }
  }

  /** What the registry client logged (the last three messages), for failure messages. */
  reported(): string {
    const messages = this.logger.messages.slice(-3);
    return messages.length === 0 ? '' : ` (the registry client reported: ${messages.join('; ')})`;
  }

  /**
   * Validates an override rule with every `ConfigValidator` it activates in group `consumer` (the side that
   * applies override rules), without a service definition.
   * @returns the problems found (empty when valid).
   */
  async validate(rule: URL, where: string): Promise<string[]> {
    try {
      await this.app.loadExtensions(ConfigValidator);
    } catch (error) {
      throw this.fail(`cannot validate the rule: loading the config validators failed: ${describeThrown(error)}`);
    }
    const problems: string[] = [];
    for (const validator of this.app.getExtensionLoader(ConfigValidator).getActivateExtensions(rule, undefined, 'consumer')) {
      try {
        validator.validate(rule, undefined, where);
      } catch (error) {
        problems.push(describeThrown(error));
      }
    }
    return problems;
  }

  /**
   * Checks a routing rule (a `routers` URL, or a config-centre rule delivered as one) with the router that reads
   * it — the `weft.rpc.Router` extension `router`, from the tool's own dependencies — exactly as a consumer would.
   * @returns the refusals the router logged (empty when it took the rule).
   */
  async checkRoutingRule(router: string, rule: URL): Promise<string[]> {
    try {
      await this.app.loadExtensions(RouterFactory);
    } catch (error) {
      throw this.fail(`cannot validate the rule: loading the routers failed: ${describeThrown(error)}`);
    }
    const factories = this.app.getExtensionLoader(RouterFactory);
    if (!factories.hasExtension(router)) {
      throw this.fail(`cannot validate the rule: no "${router}" router is installed with weft (routers: ${factories.getSupportedExtensions().join(', ') || 'none'}; @weft/routers has condition and tag)`);
    }
    const logger = new CollectingLogger();
    const service = defineService(rule.getServiceInterface() ?? (rule.path || 'weft.cli.Validation'), {});
    const consumerUrl = new URL({ protocol: 'consumer', host: '127.0.0.1', path: service.name });
    const instance = factories.getExtension(router).getRouter({ service, consumerUrl, logger, providerUrlOf: (i: Invoker) => i.getUrl() });
    instance.setRules([rule]);
    instance.destroy();
    return logger.messages;
  }

  /** Destroys the client and the framework (bounded: a hung client never keeps the tool waiting). */
  async close(): Promise<void> {
    await withDeadline(this.framework.destroy(), 2000, () => new Error('closing')).catch(() => undefined);
  }
}
