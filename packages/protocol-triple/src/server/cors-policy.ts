import { ExtensionError, ExtensionErrorCode } from '@weft/core/spi';

/** `scheme://host[:port]`, as browsers send it in `Origin`. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/;

/**
 * Which browser origins may call a Triple server's plain-HTTP entry cross-origin (CORS), read once per server.
 *
 * @remarks
 * Off unless `cors-allowed-origins` names origins (`https://app.example.com`, comma-separated, or `*`). For an
 * allowed origin, responses carry `Access-Control-Allow-Origin` (the origin itself, with `Vary: Origin`, or `*`),
 * and preflight `OPTIONS` requests are answered; other origins' preflights get 403. `*` never goes with
 * credentials: `cors-allow-credentials=true` needs explicit origins.
 *
 * @example
 * ```ts
 * const cors = CorsPolicy.parse('https://app.example.com', false, 600, 'tri://127.0.0.1:50051');
 * cors?.allows('https://app.example.com'); // true
 * ```
 */
export class CorsPolicy {
  private constructor(
    /** Allowed origins, lower-case; `undefined` for any (`*`). */
    private readonly origins: ReadonlySet<string> | undefined,
    readonly allowCredentials: boolean,
    readonly maxAge: number,
  ) {}

  /**
   * The policy of `cors-allowed-origins` (`undefined` or empty: CORS off).
   * @throws `ERR_SPI_INVALID_PARAMETER` for a value that is not an origin, or `*` with credentials.
   */
  static parse(origins: string | undefined, allowCredentials: boolean, maxAge: number, where: string): CorsPolicy | undefined {
    const list = (origins ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o !== '');
    if (list.length === 0) return undefined;
    if (list.includes('*')) {
      if (list.length > 1) {
        throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: cors-allowed-origins=${origins} mixes "*" with origins; use one or the other.`);
      }
      if (allowCredentials) {
        throw new ExtensionError(
          ExtensionErrorCode.INVALID_PARAMETER,
          `${where}: cors-allow-credentials=true cannot be combined with cors-allowed-origins=* (browsers refuse it, and it would let ` +
            'every site call with the user\'s cookies); list the origins that may call.',
        );
      }
      return new CorsPolicy(undefined, false, maxAge);
    }
    const set = new Set<string>();
    for (const origin of list) {
      const normalized = origin.toLowerCase().replace(/\/$/, '');
      if (!ORIGIN.test(normalized)) {
        throw new ExtensionError(
          ExtensionErrorCode.INVALID_PARAMETER,
          `${where}: cors-allowed-origins: ${JSON.stringify(origin)} is not an origin (expected scheme://host[:port], e.g. https://app.example.com, or *).`,
        );
      }
      set.add(normalized);
    }
    return new CorsPolicy(set, allowCredentials, maxAge);
  }

  /** Whether `origin` (an `Origin` header) may call. */
  allows(origin: string): boolean {
    return this.origins === undefined || this.origins.has(origin.toLowerCase());
  }

  /** The CORS headers of a response to an allowed `origin`. */
  responseHeaders(origin: string): Record<string, string> {
    if (this.origins === undefined) return { 'access-control-allow-origin': '*' };
    const headers: Record<string, string> = { 'access-control-allow-origin': origin, vary: 'Origin' };
    if (this.allowCredentials) headers['access-control-allow-credentials'] = 'true';
    return headers;
  }

  /** The headers of a successful preflight of an allowed `origin`. */
  preflightHeaders(origin: string, methods: string, requestedHeaders: string | undefined): Record<string, string> {
    const headers = this.responseHeaders(origin);
    headers['access-control-allow-methods'] = methods;
    if (requestedHeaders !== undefined) headers['access-control-allow-headers'] = requestedHeaders;
    headers['access-control-max-age'] = String(this.maxAge);
    if (this.origins !== undefined) headers.vary = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
    return headers;
  }
}
