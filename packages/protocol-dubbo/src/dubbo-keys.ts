/**
 * URL keys read by the `dubbo` protocol.
 *
 * @remarks
 * Server keys (`payload`, `heartbeat`, `shutdown-timeout`) come from the export URL of the **first** service exported
 * on a host and port: later services on that port share its server. Client keys come from each reference URL; one
 * connection per provider address is shared by every reference to it, configured by the first. The full table is
 * in the package README.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, { protocol: 'dubbo', port: 20880, parameters: { [DubboKeys.PAYLOAD]: 1 << 20 } });
 * ```
 */
export const DubboKeys = {
  /** Maximum body length of one frame, in bytes, checked from the header before the body is buffered. Both sides. */
  PAYLOAD: 'payload',
  /** Body codec: a `weft.rpc.Serialization` extension that is an `ObjectSerialization` (`hessian2`). */
  SERIALIZATION: 'serialization',
  /** Heartbeat interval, in ms: a client sends one after this long without reading; 3× without reads closes (both sides). */
  HEARTBEAT: 'heartbeat',
  /** How long a graceful shutdown waits for in-flight calls (after the `readonly` event), in ms. */
  SHUTDOWN_TIMEOUT: 'shutdown-timeout',
  /** Whether to connect on the first call instead of at refer time. */
  LAZY: 'lazy',
  /** How long one connection attempt may take, in ms (and how long `refer` waits for the first one). */
  CONNECT_TIMEOUT: 'connect-timeout',
  /** First reconnect delay, in ms (doubled per failed attempt, up to 30 s). */
  RECONNECT_BACKOFF: 'reconnect-backoff',
  /** Per method (`<method>.return=false`): a one-way call — sent without the two-way flag, resolved at once. */
  RETURN: 'return',
  /** The Dubbo protocol version a provider registers and a consumer writes as body field 1. */
  DUBBO: 'dubbo',
} as const;

/**
 * Defaults of {@link DubboKeys}.
 *
 * @example
 * ```ts
 * url.getPositiveParameter(DubboKeys.PAYLOAD, DubboDefaults.PAYLOAD); // 8 MiB unless set
 * ```
 */
export const DubboDefaults = {
  /** Dubbo's default port. */
  PORT: 20880,
  /** 8 MiB, Dubbo's `DEFAULT_PAYLOAD`. */
  PAYLOAD: 8 * 1024 * 1024,
  SERIALIZATION: 'hessian2',
  /** 60 s, Dubbo's default heartbeat. */
  HEARTBEAT: 60_000,
  SHUTDOWN_TIMEOUT: 10_000,
  LAZY: false,
  CONNECT_TIMEOUT: 3000,
  RECONNECT_BACKOFF: 100,
  /** The protocol version Java Dubbo 2.7 and 3.x write. */
  DUBBO_VERSION: '2.0.2',
} as const;
