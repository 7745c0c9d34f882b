import { ConfigValidator, FrameworkModel, Logger, maskedIdentity, RegistryFactory, RouterFactory, URL, defineService, type ApplicationModel, type Invoker, type Registry } from '@weft/core';
import type { ManifestIndex } from '@weft/core/spi';

import { CliFailure, describeThrown } from './io.js';
import { cliPackageDir } from './project.js';

/** Keeps what the framework logs, so failures can say what the registry client reported. */
class CollectingLogger extends Logger {
  readonly messages: string[] = [];
  debug(): void {}
  info(): void {}
  warn(message: string, error?: unknown): void {
    this.messages.push(error === undefined ? message : `${message}: ${describeThrown(error)}`);
  }
  error(message: string, error?: unknown): void {
    this.warn(message, error);
  }
}

/**
 * Races `work` against a timer; on timeout rejects with a {@link CliFailure} built by `what`.
 * @internal
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  work.catch(() => undefined);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CliFailure(what())), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A registry client opened the way an application opens one — through the `weft.registry.RegistryFactory`
 * extension named by the registry URL's protocol — plus the `ConfigValidator`s that judge override rules.
 *
 * @remarks The framework is created from the CLI's own package directory, so what it finds are the registry
 * clients and validators the CLI depends on (`@weft/registry-embedded`, `@weft/registry-zookeeper`,
 * `@weft/mock`), never code of the application the CLI is run in. No registry package is imported directly.
 * @internal
 */
export class RegistrySession {
  private constructor(
    private readonly framework: FrameworkModel,
    private readonly app: ApplicationModel,
    private readonly logger: CollectingLogger,
    /** The registry URL as given. */
    readonly url: URL,
    /** The client. */
    readonly registry: Registry,
    /** Milliseconds every registry operation may take. */
    readonly timeout: number,
  ) {}

  /** What discovery found from the CLI's own package (registry clients, validators, their declared keys). */
  get index(): ManifestIndex {
    return this.app.index;
  }

  /** `protocol://host:port/path` of the registry, for messages. */
  get address(): string {
    return maskedIdentity(this.url);
  }

  /**
   * Opens a client for `registryUrl`: `check=true`, `timeout=<timeout>` (unless given) and `file-cache=false`
   * (a tool must never answer from a stale cache) are added to the URL.
   * @throws CliFailure when no installed registry client speaks the protocol, or the client cannot be created.
   */
  static async open(registryUrl: URL, timeout: number): Promise<RegistrySession> {
    const logger = new CollectingLogger();
    const framework = FrameworkModel.create({ root: cliPackageDir(), logger });
    try {
      const app = framework.newApplication('weft-cli');
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
        throw new CliFailure(
          `no registry client for ${protocol}:// is installed with weft (available: ${factories.getSupportedExtensions().join(', ') || 'none'}).${failed} ` +
            `Registry clients are weft.registry.RegistryFactory extensions: @weft/registry-embedded (embedded://), @weft/registry-zookeeper (zookeeper://).`,
        );
      }
      const url = registryUrl.addParametersIfAbsent({ check: 'true', timeout: String(timeout) }).addParameter('file-cache', 'false');
      let registry: Registry;
      try {
        registry = factories.getExtension(protocol).getRegistry(url);
      } catch (error) {
        throw new CliFailure(`cannot reach registry ${maskedIdentity(registryUrl)}: ${describeThrown(error)}`);
      }
      return new RegistrySession(framework, app, logger, registryUrl, registry, timeout);
    } catch (error) {
      await withDeadline(framework.destroy(), 2000, () => 'closing').catch(() => undefined);
      throw error;
    }
  }

  /**
   * Runs a registry operation under the session's deadline; failures name the registry and what it reported.
   * @throws CliFailure
   */
  async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await withDeadline(
        Promise.resolve().then(work),
        this.timeout,
        () => `cannot reach registry ${this.address}: no answer within ${this.timeout} ms while ${what}${this.reported()}. Is it running and reachable? (--timeout <ms> waits longer)`,
      );
    } catch (error) {
      if (error instanceof CliFailure) throw error;
      throw new CliFailure(`cannot reach registry ${this.address} while ${what}: ${describeThrown(error)}${this.reported()}`);
    }
  }

  /** What the registry client logged, for failure messages. */
  reported(): string {
    const messages = this.logger.messages.slice(-3);
    return messages.length === 0 ? '' : ` (the registry client reported: ${messages.join('; ')})`;
  }

  /**
   * Validates an override rule with every `ConfigValidator` it activates in group `consumer` (the side that
   * applies override rules), without a service definition.
   * @returns the problems found (empty when valid).
   * @throws CliFailure when the validators cannot be loaded.
   */
  async validate(rule: URL, where: string): Promise<string[]> {
    try {
      await this.app.loadExtensions(ConfigValidator);
    } catch (error) {
      throw new CliFailure(`cannot validate the rule: loading the config validators failed: ${describeThrown(error)}`);
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
   * it — the `weft.rpc.Router` extension `router`, from the CLI's own dependencies — exactly as a consumer would.
   * @returns the refusals the router logged (empty when it took the rule).
   * @throws CliFailure when no such router is installed with the CLI.
   */
  async checkRoutingRule(router: string, rule: URL): Promise<string[]> {
    try {
      await this.app.loadExtensions(RouterFactory);
    } catch (error) {
      throw new CliFailure(`cannot validate the rule: loading the routers failed: ${describeThrown(error)}`);
    }
    const factories = this.app.getExtensionLoader(RouterFactory);
    if (!factories.hasExtension(router)) {
      throw new CliFailure(`cannot validate the rule: no "${router}" router is installed with weft (routers: ${factories.getSupportedExtensions().join(', ') || 'none'}; @weft/routers has condition and tag)`);
    }
    const logger = new CollectingLogger();
    const service = defineService(rule.getServiceInterface() ?? (rule.path || 'weft.cli.Validation'), {});
    const consumerUrl = new URL({ protocol: 'consumer', host: '127.0.0.1', path: service.name });
    const instance = factories.getExtension(router).getRouter({ service, consumerUrl, logger, providerUrlOf: (i: Invoker) => i.getUrl() });
    instance.setRules([rule]);
    instance.destroy();
    return logger.messages;
  }

  /** The application model of the session (the CLI's own extensions). @internal */
  get model(): ApplicationModel {
    return this.app;
  }

  /** Destroys the client and the framework (bounded: a hung client never keeps the CLI waiting). */
  async close(): Promise<void> {
    await withDeadline(this.framework.destroy(), 2000, () => 'closing').catch(() => undefined);
  }
}
