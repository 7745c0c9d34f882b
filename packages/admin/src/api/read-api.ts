import type { AuditLog } from '../audit/audit-log.js';
import { HttpError } from '../http/http-error.js';
import type { MetricsScraper } from '../metrics/metrics-scraper.js';
import type { ServiceView } from '../registry/service-view.js';
import type { ApiRequest } from './api-request.js';

/** At most this many services are summarised in one answer. */
const MAX_LISTED = 500;

/** Runs `work` over `items`, `limit` at a time, keeping the order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  });
  await Promise.all(runners);
  return out;
}

/**
 * The console's read endpoints: `GET /api/services`, `GET /api/services/<interface>`,
 * `GET /api/services/<interface>/metrics`, `GET /api/audit`.
 *
 * @remarks Answers are read fresh from the registry (see {@link ServiceView}); metrics come from the server's
 * scraper. Shapes: the package README "API".
 * @example
 * ```ts
 * const list = await reads.services(request);
 * ```
 */
export class ReadApi {
  constructor(
    private readonly view: ServiceView,
    private readonly metrics: MetricsScraper,
    private readonly audit: AuditLog,
  ) {}

  /** `GET /api/services?q=`. */
  async services(request: ApiRequest): Promise<unknown> {
    const q = (request.query.get('q') ?? '').trim().toLowerCase();
    const names = (await this.view.services()).filter((s) => q === '' || s.toLowerCase().includes(q)).slice(0, MAX_LISTED);
    return mapLimited(names, 8, async (service) => {
      const state = await this.view.read(service);
      const enabled = state.providers.filter((p) => this.view.providerEnabled(p, state.overrides)).length;
      const summary = this.metrics.summary(service);
      return {
        service,
        group: commonValue(state.providers.map((p) => p.getGroup() || null)),
        version: commonValue(state.providers.map((p) => p.getVersion() || null)),
        providers: { total: state.providers.length, enabled },
        consumers: state.consumers.length,
        applications: [...new Set([...state.providers, ...state.consumers].map((u) => u.getApplication()).filter((a): a is string => a !== undefined && a !== ''))].sort(),
        overrides: state.overrides.length,
        routes: state.routes.length + state.documents.length,
        mock: this.view.mockOf(state),
        errorRate: summary?.errorRate ?? null,
        p99: summary?.p99 ?? null,
        rps: summary?.rps ?? null,
      };
    });
  }

  /** `GET /api/services/<interface>?group=&version=`. */
  async service(request: ApiRequest, name: string): Promise<unknown> {
    const service = await this.view.known(name);
    const state = await this.view.read(service);
    const group = request.query.get('group');
    const version = request.query.get('version');
    return this.view.detail(state, { group: group === null || group === '' ? undefined : group, version: version === null || version === '' ? undefined : version });
  }

  /** `GET /api/services/<interface>/metrics`. */
  async serviceMetrics(name: string): Promise<unknown> {
    const service = await this.view.known(name);
    return { interval: this.metrics.interval, points: this.metrics.points(service) };
  }

  /** `GET /api/audit`. */
  auditEntries(): unknown {
    return this.audit.list();
  }

  /** Refuses a method other than GET on a read endpoint. */
  static onlyGet(request: ApiRequest, what: string): void {
    if (request.method !== 'GET' && request.method !== 'HEAD') throw new HttpError(405, `${request.method} ${what}: this endpoint answers GET only`);
  }
}

/** The value every element has, else `null`. */
function commonValue(values: readonly (string | null)[]): string | null {
  const first = values[0] ?? null;
  return values.every((v) => v === first) ? first : null;
}
