/**
 * URL keys read by the `tri` protocol.
 *
 * @remarks
 * Server keys (`payload` … `shutdown-timeout`) are read from the export URL of the **first** service exported on
 * a host and port: every later service on that port shares its server. Client keys are read from each reference
 * URL (`payload` applies on both sides: to request messages on the server, to response messages on the client).
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, { protocol: 'tri', port: 50051, parameters: { [TripleKeys.PAYLOAD]: 1 << 20 } });
 * ```
 */
export const TripleKeys = {
  /** Maximum size of one message (gRPC) or one plain-HTTP body, in bytes. Both sides. */
  PAYLOAD: 'payload',
  /** Codec name (`weft.rpc.Serialization` extension). Both sides. */
  SERIALIZATION: 'serialization',
  /** HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS` the server advertises per connection. */
  MAX_CONCURRENT_STREAMS: 'max-concurrent-streams',
  /** HTTP/2 `SETTINGS_MAX_HEADER_LIST_SIZE` (and the HTTP/1.1 header size limit), in bytes. Both sides. */
  MAX_HEADER_LIST_SIZE: 'max-header-list-size',
  /** Whether `group/path:1.0.0`, then the bare path, answer a call no exact service key matches (Dubbo's fallback). */
  RESOLVE_FALLBACK_TO_DEFAULT: 'resolve-fallback-to-default',
  /** How long a graceful shutdown waits for in-flight calls before closing connections, in ms. */
  SHUTDOWN_TIMEOUT: 'shutdown-timeout',
  /** How long an accepted connection may stay silent before its protocol is known, in ms. */
  SNIFF_TIMEOUT: 'sniff-timeout',
  /** HTTP/2 connections per provider address, shared by every reference to it. */
  CONNECTIONS: 'connections',
  /** Whether to connect on the first call instead of at refer time. */
  LAZY: 'lazy',
  /** How long one connection attempt may take, in ms (and how long `refer` waits for the first one). */
  CONNECT_TIMEOUT: 'connect-timeout',
  /** First reconnect delay after a connection is lost or refused, in ms (then ×1.6 per attempt, ±20 % jitter). */
  RECONNECT_BACKOFF: 'reconnect-backoff',
  /** Cap of the reconnect delay, in ms. */
  RECONNECT_MAX_BACKOFF: 'reconnect-max-backoff',
  /** Interval of keepalive PINGs on an otherwise idle connection, in ms (0: none). */
  HEARTBEAT: 'heartbeat',
  /** The consumer's HTTP/2 receive window per stream, in bytes (`SETTINGS_INITIAL_WINDOW_SIZE`). Client. */
  INITIAL_WINDOW_SIZE: 'initial-window-size',
  /** The consumer's HTTP/2 receive window per connection, shared by its streams, in bytes. Client. */
  CONNECTION_WINDOW_SIZE: 'connection-window-size',
  /** Whether the server answers the built-in `grpc.health.v1.Health` (Check, List, Watch). Server. */
  HEALTH: 'health',
  /** Whether the server answers the built-in server reflection (`grpc.reflection.v1` and `v1alpha`). Server. */
  REFLECTION: 'reflection',
  /** Whether the port serves plain-HTTP JSON calls next to gRPC (`false`: gRPC only; plain requests get 415). */
  PLAIN_HTTP: 'plain-http',
  /** Browser origins that may call the plain-HTTP entry cross-origin (comma list, or `*`); unset: CORS off. */
  CORS_ALLOWED_ORIGINS: 'cors-allowed-origins',
  /** Whether allowed origins may call with credentials (cookies): `Access-Control-Allow-Credentials: true`. */
  CORS_ALLOW_CREDENTIALS: 'cors-allow-credentials',
  /** How long browsers may cache a preflight answer, in seconds (`Access-Control-Max-Age`). */
  CORS_MAX_AGE: 'cors-max-age',
  /** `grpc-encoding` of sent messages: `identity` (default), `gzip` or `deflate`. Client: requests; server: responses to clients that accept it. */
  COMPRESSION: 'compression',
  /** Cap on bytes buffered and not yet consumed per connection (raw and inflated request messages), in bytes. */
  MAX_CONNECTION_BUFFER: 'max-connection-buffer',
  /** Cap on bytes buffered and not yet consumed on the whole server, in bytes. */
  MAX_SERVER_BUFFER: 'max-server-buffer',
  /** How long an HTTP/2 connection may have no open stream before GOAWAY and close, in ms. */
  IDLE_TIMEOUT: 'idle-timeout',
  /** How long the HTTP/2 preface or a request's header block may stay unfinished, in ms. */
  HEADER_TIMEOUT: 'header-timeout',
  /** How long a request body may make no progress before the stream is reset, in ms. */
  BODY_TIMEOUT: 'body-timeout',
} as const;

/**
 * Defaults of the {@link TripleKeys}.
 *
 * @example
 * ```ts
 * url.getParameter(TripleKeys.PAYLOAD, TripleDefaults.PAYLOAD); // 8388608 unless configured
 * ```
 */
export const TripleDefaults = {
  /** The Triple default port. */
  PORT: 50051,
  /** 8 MiB, Dubbo's default `payload`. */
  PAYLOAD: 8 * 1024 * 1024,
  SERIALIZATION: 'json',
  MAX_CONCURRENT_STREAMS: 1000,
  /** Dubbo's Triple default. */
  MAX_HEADER_LIST_SIZE: 32 * 1024,
  RESOLVE_FALLBACK_TO_DEFAULT: true,
  SHUTDOWN_TIMEOUT: 10_000,
  SNIFF_TIMEOUT: 10_000,
  CONNECTIONS: 1,
  LAZY: false,
  CONNECT_TIMEOUT: 3000,
  RECONNECT_BACKOFF: 100,
  RECONNECT_MAX_BACKOFF: 10_000,
  /** Dubbo's client `heartbeat`. */
  HEARTBEAT: 60_000,
  /** 1 MiB: 16× HTTP/2's 64 KiB, which caps one stream at 64 KiB per round trip (grpc-js keeps 64 KiB). */
  INITIAL_WINDOW_SIZE: 1024 * 1024,
  /** 4 MiB. */
  CONNECTION_WINDOW_SIZE: 4 * 1024 * 1024,
  /** On (Dubbo's `dubbo.tri.builtin.service.init` defaults to false). */
  HEALTH: true,
  /** On (Dubbo's `dubbo.tri.builtin.service.init` defaults to false). */
  REFLECTION: true,
  PLAIN_HTTP: true,
  CORS_ALLOW_CREDENTIALS: false,
  /** 10 minutes. */
  CORS_MAX_AGE: 600,
  COMPRESSION: 'identity',
  /** 32 MiB: four messages of the default `payload`. */
  MAX_CONNECTION_BUFFER: 32 * 1024 * 1024,
  /** 64 MiB. */
  MAX_SERVER_BUFFER: 64 * 1024 * 1024,
  /** 180 s: Dubbo's server idle close (3 × `heartbeat`). */
  IDLE_TIMEOUT: 180_000,
  HEADER_TIMEOUT: 10_000,
  BODY_TIMEOUT: 30_000,
} as const;

/**
 * Header names of the Triple wire (Dubbo's `TripleHeaderEnum`, plus Weft's `weft-error-code`), lower-case as
 * HTTP/2 sends them.
 *
 * @example
 * ```ts
 * metadata.set(TripleHeaders.SERVICE_VERSION, '1.0.0');
 * ```
 */
export const TripleHeaders = {
  SERVICE_GROUP: 'tri-service-group',
  SERVICE_VERSION: 'tri-service-version',
  SERVICE_TIMEOUT: 'tri-service-timeout',
  CONSUMER_APPNAME: 'tri-consumer-appname',
  HEADER_CONVERT: 'tri-header-convert',
  EXCEPTION_CODE: 'tri-exception-code',
  REST_SERVICE_GROUP: 'rest-service-group',
  REST_SERVICE_VERSION: 'rest-service-version',
  GRPC_STATUS: 'grpc-status',
  GRPC_MESSAGE: 'grpc-message',
  /** A base64 `google.rpc.Status` (IDL services). */
  GRPC_STATUS_DETAILS: 'grpc-status-details-bin',
  GRPC_TIMEOUT: 'grpc-timeout',
  GRPC_ENCODING: 'grpc-encoding',
  GRPC_ACCEPT_ENCODING: 'grpc-accept-encoding',
  /** Weft's own trailer: the exact `RpcErrorCode` of a failure, next to the `grpc-status` it maps to. */
  ERROR_CODE: 'weft-error-code',
} as const;
