import { BreakerTimeline } from '../charts/breaker-timeline.js';
import { LineChart } from '../charts/line-chart.js';
import type { ConsoleContext, Page } from '../console-context.js';
import { messageOf } from '../console-context.js';
import { ApiError } from '../api.js';
import { h, replace } from '../dom.js';
import { BreakerForm } from '../forms/breaker-form.js';
import { errorBox, type FormHost } from '../forms/form-host.js';
import { MockForm } from '../forms/mock-form.js';
import { OverrideForm } from '../forms/override-form.js';
import { RouteForm } from '../forms/route-form.js';
import { ERROR_REASONS, type OverrideInfo, type ProviderInfo, type ServiceDetails, type ServiceMetrics } from '../types.js';

/** How often the providers, consumers and rules are reloaded, ms. */
const DETAILS_MS = 5000;

function table(label: string, columns: readonly string[], rows: readonly HTMLTableRowElement[], empty: string): HTMLTableElement {
  return h(
    'table',
    { 'aria-label': label },
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.length > 0 ? rows : h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, empty))),
  );
}

function parameters(values: Readonly<Record<string, string>>, only?: readonly string[]): HTMLElement {
  const entries = Object.entries(values).filter(([key]) => only === undefined || only.includes(key));
  return h('span', { class: 'params' }, entries.map(([key, value]) => h('code', {}, `${key}=${value}`)));
}

/** Dubbo's default provider weight. */
const DEFAULT_WEIGHT = 100;

/**
 * The weight the consumers use for a provider: an enabled override's `weight` for its address (`host:port`,
 * else `host`), else for every address (`0.0.0.0`), else the registered one.
 */
export function effectiveWeight(provider: ProviderInfo, overrides: readonly OverrideInfo[]): { value: number; registered: number; overridden: boolean } {
  const registered = provider.weight ?? DEFAULT_WEIGHT;
  const host = provider.address.replace(/:\d+$/, '');
  for (const address of [provider.address, host, '0.0.0.0']) {
    const rule = overrides.find((o) => o.enabled && o.address === address && o.parameters['weight'] !== undefined);
    const value = Number(rule?.parameters['weight']);
    if (rule !== undefined && Number.isFinite(value)) return { value, registered, overridden: true };
  }
  return { value: registered, registered, overridden: false };
}

/** The charts of one service, fed by `/metrics`. */
class ServiceCharts {
  readonly element: HTMLElement;
  private readonly rps: LineChart;
  private readonly errors: LineChart;
  private readonly latency: LineChart;
  private readonly mock: LineChart;
  private readonly breaker: BreakerTimeline;
  private readonly note = h('p', { class: 'muted' });

  constructor(context: ConsoleContext) {
    this.rps = new LineChart(context.ids, 'Requests per second', '/s', [{ key: 'rps', label: 'requests' }]);
    this.errors = new LineChart(context.ids, 'Errors per second by reason', '/s', ERROR_REASONS.map((reason) => ({ key: reason, label: reason })));
    this.latency = new LineChart(context.ids, 'Latency', 'ms', [
      { key: 'p50', label: 'p50' },
      { key: 'p99', label: 'p99' },
    ]);
    this.mock = new LineChart(context.ids, 'Mock answers per second', '/s', [
      { key: 'force', label: 'force' },
      { key: 'fail', label: 'fail' },
    ]);
    this.breaker = new BreakerTimeline(context.ids);
    this.element = h('div', { class: 'charts' }, this.note, this.rps.element, this.errors.element, this.latency.element, this.mock.element, this.breaker.element);
  }

  update(metrics: ServiceMetrics): void {
    const points = metrics.points;
    this.note.textContent = points.length === 0 ? 'No metrics yet: no metrics endpoint answered for this service (start the console with --metrics <url>).' : `Scraped every ${Math.round(metrics.interval / 100) / 10} s; ${points.length} sample${points.length === 1 ? '' : 's'}.`;
    this.rps.update(points.map((p) => ({ t: p.t, values: { rps: p.rps } })));
    this.errors.update(points.map((p) => ({ t: p.t, values: { ...(p.errorsPerSecond ?? {}) } })));
    this.latency.update(points.map((p) => ({ t: p.t, values: { p50: p.p50, p99: p.p99 } })));
    this.mock.update(points.map((p) => ({ t: p.t, values: { force: p.mockPerSecond?.force ?? null, fail: p.mockPerSecond?.fail ?? null } })));
    this.breaker.update(points.map((p) => ({ t: p.t, state: p.breaker })));
  }
}

/**
 * One service: live charts, providers (disable, enable, drain), consumers, overrides, routes, and the action
 * forms (mock, timeout/retries/weight, routing rule, circuit breaker), each applied only after its plan is confirmed.
 *
 * @example
 * ```ts
 * show(servicePage(context, 'org.acme.Greeter'));
 * ```
 */
export function servicePage(context: ConsoleContext, service: string): Page {
  let stopped = false;
  const timers: { details?: ReturnType<typeof setTimeout>; metrics?: ReturnType<typeof setTimeout> } = {};
  const errors = errorBox();
  const providerErrors = errorBox();
  const providers = h('div');
  const consumers = h('div');
  const overrides = h('div');
  const routes = h('div');
  const summary = h('p', { class: 'service-summary', 'aria-label': 'Summary' });
  const charts = new ServiceCharts(context);

  const host: FormHost = { context, service, refresh: () => void loadDetails() };
  const mockForm = new MockForm(host);
  const overrideForm = new OverrideForm(host);
  const routeForm = new RouteForm(host);
  const breakerForm = new BreakerForm(host);

  const providerAction = (provider: ProviderInfo, path: string, body: Record<string, unknown>): void => {
    void context.act(providerErrors, (confirm) => context.api.action(service, 'POST', path, { ...body, confirm }), () => void loadDetails());
  };
  const providerRow = (p: ProviderInfo, overrides: readonly OverrideInfo[]): HTMLTableRowElement => {
    const weight = effectiveWeight(p, overrides);
    return h(
      'tr',
      { 'data-address': p.address },
      h('th', { scope: 'row' }, h('code', {}, p.address)),
      h('td', {}, p.application ?? ''),
      h('td', {}, p.protocol),
      h('td', { class: 'num' }, String(weight.value), weight.overridden ? h('span', { class: 'muted' }, ` (override; registered ${weight.registered})`) : null),
      h('td', {}, h('span', { class: `badge ${p.enabled ? 'health-healthy' : 'health-down'}` }, p.enabled ? 'enabled' : 'disabled')),
      h(
        'td',
        { class: 'actions' },
        p.enabled
          ? h('button', { type: 'button', 'aria-label': `Disable ${p.address}`, onclick: () => providerAction(p, 'providers/disable', { address: p.address }) }, 'Disable')
          : h('button', { type: 'button', 'aria-label': `Enable ${p.address}`, onclick: () => providerAction(p, 'providers/enable', { address: p.address }) }, 'Enable'),
        h('button', { type: 'button', 'aria-label': `Drain ${p.address}`, title: 'weight 0: no new calls', onclick: () => providerAction(p, 'override', { address: p.address, weight: 0 }) }, 'Drain'),
      ),
    );
  };

  const render = (details: ServiceDetails): void => {
    const enabled = details.providers.filter((p) => p.enabled).length;
    const mocks = details.overrides.filter((o) => o.enabled).flatMap((o) => Object.entries(o.parameters).filter(([key]) => key === 'mock' || key.endsWith('.mock')));
    const level = enabled === 0 ? 'down' : mocks.length > 0 || enabled < details.providers.length ? 'degraded' : 'healthy';
    replace(
      summary,
      h('span', { class: `badge health-${level}` }, level),
      ` ${enabled} of ${details.providers.length} provider${details.providers.length === 1 ? '' : 's'} enabled · ${details.consumers.length} consumer${details.consumers.length === 1 ? '' : 's'} · ${details.methods.length} method${details.methods.length === 1 ? '' : 's'}`,
      mocks.map(([key, value]) => [' · ', h('code', {}, `${key}=${value}`)]),
    );
    replace(providers, table('Providers', ['Address', 'Application', 'Protocol', 'Weight', 'State', 'Actions'], details.providers.map((p) => providerRow(p, details.overrides)), 'No provider is registered.'));
    replace(
      consumers,
      table('Consumers', ['Address', 'Application', 'Settings'], details.consumers.map((c) => h('tr', {}, h('th', { scope: 'row' }, h('code', {}, c.address)), h('td', {}, c.application ?? ''), h('td', {}, parameters(c.parameters, ['timeout', 'retries', 'mock', 'cluster', 'loadbalance'])))), 'No consumer is registered.'),
    );
    replace(
      overrides,
      table('Overrides', ['Address', 'Enabled', 'Settings'], details.overrides.map((o) => h('tr', {}, h('th', { scope: 'row' }, h('code', {}, o.address)), h('td', {}, o.enabled ? 'yes' : 'no'), h('td', {}, parameters(o.parameters)))), 'No override rule.'),
    );
    replace(routes, table('Routes', ['Kind', 'Rule'], details.routes.map((r) => h('tr', {}, h('th', { scope: 'row' }, r.kind), h('td', {}, h('pre', {}, r.text)))), 'No routing rule.'));
    for (const form of [mockForm, overrideForm, routeForm, breakerForm]) form.update(details);
  };

  const loadDetails = async (): Promise<void> => {
    try {
      const details = await context.api.service(service);
      if (stopped) return;
      errors.textContent = '';
      render(details);
    } catch (error) {
      if (stopped) return;
      errors.textContent = messageOf(error);
      if (error instanceof ApiError && error.status === 404) {
        // No such service: nothing to show or act on; stop refreshing.
        stopped = true;
        columns.hidden = true;
      }
    }
  };
  const detailsLoop = async (): Promise<void> => {
    await loadDetails();
    if (!stopped) timers.details = setTimeout(() => void detailsLoop(), DETAILS_MS);
  };
  const metricsLoop = async (): Promise<void> => {
    let interval = DETAILS_MS;
    try {
      const metrics = await context.api.metrics(service);
      if (stopped) return;
      charts.update(metrics);
      interval = Math.min(DETAILS_MS, Math.max(1000, metrics.interval));
    } catch {
      // the details loop reports what is wrong; the charts keep their last picture
    }
    if (!stopped) timers.metrics = setTimeout(() => void metricsLoop(), interval);
  };
  const section = (title: string, ...children: HTMLElement[]): HTMLElement => {
    const id = context.ids.id('section');
    return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), children);
  };
  const columns = h(
    'div',
    { class: 'columns' },
    h('div', { class: 'column' }, section('Live', charts.element), section('Providers', providerErrors, providers), section('Consumers', consumers), section('Overrides', overrides), section('Routes', routes)),
    h('div', { class: 'column' }, section('Actions', mockForm.element, overrideForm.element, routeForm.element, breakerForm.element)),
  );
  const element = h('main', { class: 'service' }, h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Services'), ' / '), h('h1', {}, service), summary, errors, columns);
  void detailsLoop();
  void metricsLoop();
  return {
    element,
    title: service,
    dispose: () => {
      stopped = true;
      clearTimeout(timers.details);
      clearTimeout(timers.metrics);
    },
  };
}
