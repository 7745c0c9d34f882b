import { ApplicationModel, Logger, Protocol, RpcError, RpcErrorCode, WeftApplication, type Exporter, type Invoker, type ServiceDefinition, type URL } from '@weft/core';
import { Inject, InjectWrapped, safeLog } from '@weft/core/spi';

import { PermissionLevel } from './qos-commands.js';
import { QosServer, type QosSettings } from './qos-server.js';

/**
 * The URL keys of QoS, read from the application's first export or refer (Dubbo reads them from the application
 * config, where they are also spelt `qos-port`…; Weft takes the dotted names).
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, { protocol: 'tri', parameters: { [QosKeys.PORT]: 22223 } });
 * ```
 */
export const QosKeys = {
  /** `false` turns QoS off. @defaultValue true */
  ENABLE: 'qos.enable',
  /** @defaultValue 22222 */
  PORT: 'qos.port',
  /** Address to bind. @defaultValue 127.0.0.1 (Dubbo binds every interface) */
  HOST: 'qos.host',
  /** `true`: a port that cannot be bound fails the export/refer; `false`: logged. @defaultValue false */
  CHECK: 'qos.check',
  /** Accept callers that are neither loopback nor whitelisted. @defaultValue false */
  ACCEPT_FOREIGN_IP: 'qos.accept.foreign.ip',
  /** Comma list of IPs that count as trusted (`PROTECTED`) callers. */
  WHITELIST: 'qos.accept.foreign.ip.whitelist',
  /** The level of other callers: `NONE`, `PUBLIC` (probes only), `PROTECTED`, `PRIVATE`. @defaultValue PUBLIC */
  ANONYMOUS_LEVEL: 'qos.anonymous.access.permission.level',
  /** Comma list of commands anyone may run. */
  ALLOW_COMMANDS: 'qos.anonymous.access.allow.commands',
} as const;

/** The model service holding an application's QoS server (one per application, whichever protocol started it). */
const SERVER_SERVICE = 'weft.qos.server';

function parameter(url: URL, key: string): string | undefined {
  return url.getParameter(key);
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

function levelOf(value: string | undefined): number {
  const upper = (value ?? 'PUBLIC').trim().toUpperCase();
  return upper in PermissionLevel ? PermissionLevel[upper as keyof typeof PermissionLevel] : PermissionLevel.PUBLIC;
}

/**
 * Starts the application's QoS server on its first export or refer, as Dubbo's `QosProtocolWrapper` does.
 *
 * @remarks Wrapper (order 50) of every `weft.rpc.Protocol` extension; one server per application, stopped when the
 * application is destroyed. Commands: `live`, `ready`, `startup` (probes: 200 `true` / 503 `false`), `ls`, `online`,
 * `offline` (`[service key regex]`), `help` — see the package README. Keys: {@link QosKeys}.
 * @example
 * ```ts
 * // curl http://127.0.0.1:22222/ready → true
 * await app.export(Greeter, impl, { protocol: 'tri' });
 * ```
 */
export class QosProtocolWrapper extends Protocol {
  constructor(
    @InjectWrapped() private readonly protocol: Protocol,
    @Inject(ApplicationModel) private readonly model: ApplicationModel,
    @Inject(Logger) private readonly logger: Logger,
  ) {
    super();
  }

  getDefaultPort(): number {
    return this.protocol.getDefaultPort();
  }

  override supportsTls(): boolean {
    return this.protocol.supportsTls();
  }

  async export(invoker: Invoker): Promise<Exporter> {
    await this.startQos(invoker.getUrl());
    return this.protocol.export(invoker);
  }

  async refer(service: ServiceDefinition, url: URL): Promise<Invoker> {
    await this.startQos(url);
    return this.protocol.refer(service, url);
  }

  destroy(): Promise<void> {
    return this.protocol.destroy();
  }

  private async startQos(url: URL): Promise<void> {
    if (this.model.hasService(SERVER_SERVICE)) return;
    if (parameter(url, QosKeys.ENABLE)?.trim().toLowerCase() === 'false') {
      this.model.registerService(SERVER_SERVICE, { port: undefined });
      return;
    }
    const port = Number(parameter(url, QosKeys.PORT) ?? 22222);
    const settings: QosSettings = {
      port: Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 22222,
      host: parameter(url, QosKeys.HOST) ?? '127.0.0.1',
      acceptForeignIp: parameter(url, QosKeys.ACCEPT_FOREIGN_IP)?.trim().toLowerCase() === 'true',
      whitelist: list(parameter(url, QosKeys.WHITELIST)),
      anonymousLevel: levelOf(parameter(url, QosKeys.ANONYMOUS_LEVEL)),
      allowCommands: list(parameter(url, QosKeys.ALLOW_COMMANDS)),
    };
    const server = new QosServer(() => WeftApplication.of(this.model), settings, this.logger);
    this.model.registerService(SERVER_SERVICE, server);
    this.model.onDestroy(() => server.stop());
    try {
      await server.start();
      safeLog(this.logger, 'info', `QoS server of application "${this.model.name}" listening on ${settings.host}:${server.port}`);
    } catch (error) {
      const message = `QoS server of application "${this.model.name}" cannot listen on ${settings.host}:${settings.port}: ${(error as Error).message}`;
      if (parameter(url, QosKeys.CHECK)?.trim().toLowerCase() === 'true') throw new RpcError(RpcErrorCode.NETWORK, `${message} (qos.check=true)`, { cause: error });
      safeLog(this.logger, 'warn', `${message} (qos.check=false: continuing without QoS)`);
    }
  }
}

/**
 * The QoS server of an application started by {@link QosProtocolWrapper}, if any (for tests and tools: its port).
 * @example
 * ```ts
 * const port = qosServerOf(app.model)?.port;
 * ```
 */
export function qosServerOf(model: ApplicationModel): { readonly port: number | undefined } | undefined {
  if (!model.hasService(SERVER_SERVICE)) return undefined;
  return model.getService<{ readonly port: number | undefined }>(SERVER_SERVICE);
}
