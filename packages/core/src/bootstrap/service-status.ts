import type { URL } from '../rpc/url.js';

/**
 * What an application exports and refers: {@link WeftApplication.serviceStatus}.
 * @example
 * ```ts
 * const { providers, consumers } = app.serviceStatus();
 * ```
 */
export interface ServiceStatus {
  /** The registry's protocol (`zookeeper`, `embedded`), when the application has one. */
  readonly registry: string | undefined;
  /** Exported services, sorted by service key. */
  readonly providers: readonly {
    readonly serviceKey: string;
    readonly url: URL;
    /** Whether the export is registered with the registry at all (not injvm, not `register: false`). */
    readonly registrable: boolean;
    /** Whether it is registered now (false: offline, or not registrable). */
    readonly registered: boolean;
  }[];
  /** Referred services, sorted by service key. */
  readonly consumers: readonly {
    readonly serviceKey: string;
    /** Whether providers come from the registry (else from `url`). */
    readonly fromRegistry: boolean;
    /** Providers the reference knows now. */
    readonly providers: number;
  }[];
}
