// The JSON shapes of the @weft/admin API (docs: ADMIN contract, packages/admin/README.md "API").

/** One row of `GET /api/services`. */
export interface ServiceSummary {
  readonly service: string;
  readonly group: string | null;
  readonly version: string | null;
  readonly providers: { readonly total: number; readonly enabled: number };
  readonly consumers: number;
  readonly applications: readonly string[];
  readonly overrides: number;
  readonly routes: number;
  readonly mock: string | null;
  readonly errorRate: number | null;
  readonly p99: number | null;
  readonly rps: number | null;
}

/** A registered provider of a service. */
export interface ProviderInfo {
  readonly url: string;
  readonly address: string;
  readonly application: string | null;
  readonly protocol: string;
  readonly group: string | null;
  readonly version: string | null;
  readonly weight: number | null;
  readonly enabled: boolean;
  readonly parameters: Readonly<Record<string, string>>;
}

/** A registered consumer of a service. */
export interface ConsumerInfo {
  readonly url: string;
  readonly address: string;
  readonly application: string | null;
  readonly parameters: Readonly<Record<string, string>>;
}

/** An override rule in force. */
export interface OverrideInfo {
  readonly url: string;
  readonly address: string;
  readonly enabled: boolean;
  readonly parameters: Readonly<Record<string, string>>;
}

/** A routing rule in force. */
export interface RouteInfo {
  readonly kind: 'condition' | 'tag';
  readonly text: string;
  readonly url: string;
}

/** `GET /api/services/<interface>`. */
export interface ServiceDetails {
  readonly service: string;
  readonly methods: readonly { readonly name: string; readonly returns: string | null }[];
  readonly providers: readonly ProviderInfo[];
  readonly consumers: readonly ConsumerInfo[];
  readonly overrides: readonly OverrideInfo[];
  readonly routes: readonly RouteInfo[];
}

/** Failure reasons of `errorsPerSecond`. */
export const ERROR_REASONS = ['timeout', 'business', 'network', 'limit', 'codec', 'unknown'] as const;

/** Circuit breaker states as the API reports them. */
export type BreakerState = 'closed' | 'open' | 'half-open' | 'forced-open' | 'forced-closed';

/** One scrape of a service's metrics. */
export interface MetricsPoint {
  readonly t: number;
  readonly rps: number | null;
  readonly errorsPerSecond: Partial<Record<(typeof ERROR_REASONS)[number], number>> | null;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly mockPerSecond: { readonly force?: number; readonly fail?: number } | null;
  readonly breaker: BreakerState | null;
}

/** `GET /api/services/<interface>/metrics`. */
export interface ServiceMetrics {
  readonly interval: number;
  readonly points: readonly MetricsPoint[];
}

/** What an action would do: the answer of an action without `confirm`. */
export interface Plan {
  readonly summary: string;
  readonly rules: readonly { readonly op: 'write' | 'delete'; readonly node: string; readonly url: string }[];
  readonly zkCli: readonly string[];
  readonly cli: string;
}

/** The answer of an action. */
export interface PlanAnswer {
  readonly plan: Plan;
  readonly applied?: boolean;
}

/** `POST /api/services/<interface>/mock/preview`. */
export type MockPreview =
  | { readonly ok: true; readonly value?: unknown; readonly throws?: string }
  | { readonly ok: false; readonly error: string };

/** One entry of `GET /api/audit`. */
export interface AuditEntry {
  readonly at: string;
  readonly who: string;
  readonly action: string;
  readonly service: string;
  readonly rule: string;
  readonly zkCli: string | readonly string[];
  readonly cli: string;
}
