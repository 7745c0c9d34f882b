import {
  buildConditionRouteUrl,
  conditionRouteText,
  mergeOverrideRule,
  overrideNumericProblems,
  overrideSettings,
  readConditionRoutes,
  readOverrideRules,
  routeRuleNode,
  routeRuleUrl,
  sameOverrideIdentity,
  URL,
  validateOverrideRule,
  withoutOverrideKeys,
  type Logger,
  type OverrideIdentity,
  type RegistrySession,
} from '@weft/core';
import { mockMode, parseMockAction, MockLiteral } from '@weft/mock';

import type { AuditLog } from '../audit/audit-log.js';
import { HttpError } from '../http/http-error.js';
import { closestName } from '../registry/service-names.js';
import type { ServiceView } from '../registry/service-view.js';
import type { ApiRequest } from './api-request.js';
import { checkMockValue, type MockValueCheck } from './mock-check.js';
import { nodeOf, weftCommand, zkCliOf, type Plan, type PlannedRule } from './plan.js';

/** What the action endpoints work with. */
export interface ActionContext {
  readonly session: RegistrySession;
  readonly view: ServiceView;
  readonly audit: AuditLog;
  /** The registry URL as given (secrets masked), for the `weft` command lines of plans. */
  readonly registryText: string;
  readonly logger: Logger;
}

const METHOD_NAME = /^[A-Za-z_$][\w$]*$/;
/** The longest mock expression or rule text accepted. */
const MAX_TEXT = 16 * 1024;
const EVERYONE: OverrideIdentity = { host: '0.0.0.0', port: 0, group: undefined, version: undefined, application: undefined };
/** The refusals of a mock value named in one message at most. */
const MAX_REFUSALS_SHOWN = 5;

/** The refusals of `checks` as one message, or `undefined` when every checked value fits. */
function refusalOf(checks: readonly MockValueCheck[]): string | undefined {
  const errors = checks.map((c) => c.error).filter((e): e is string => e !== undefined);
  if (errors.length === 0) return undefined;
  const more = errors.length > MAX_REFUSALS_SHOWN ? ` (and ${errors.length - MAX_REFUSALS_SHOWN} more methods)` : '';
  return `${errors.slice(0, MAX_REFUSALS_SHOWN).join('; ')}${more}`;
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new HttpError(400, `"${key}" must be a string (got ${typeof value})`);
  if (value.length > MAX_TEXT) throw new HttpError(400, `"${key}" is longer than ${MAX_TEXT} characters`);
  return value;
}

function requiredString(body: Record<string, unknown>, key: string, what: string): string {
  const value = optionalString(body, key);
  if (value === undefined || value.trim() === '') throw new HttpError(400, `missing "${key}": ${what}`);
  return value;
}

function optionalCount(body: Record<string, unknown>, key: string, min: number): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min) throw new HttpError(400, `"${key}" must be a whole number ≥ ${min} (got ${JSON.stringify(value).slice(0, 50)})`);
  return String(n);
}

function confirmed(body: Record<string, unknown>): boolean {
  const value = body['confirm'];
  if (value !== undefined && typeof value !== 'boolean') throw new HttpError(400, '"confirm" must be true or false');
  return value === true;
}

/** A change to the service's override rules: what to write and remove. */
interface OverrideChange {
  readonly write: readonly URL[];
  readonly remove: readonly URL[];
}

/**
 * The console's action endpoints: mock, override, provider enable/disable, routes, circuit breaker.
 *
 * @remarks Each answers a plan (`{ plan }`: summary, registry changes, zkCli commands, the `weft` command line)
 * unless the body has `"confirm": true`; then it applies the plan, reads the registry back, records the audit
 * entry and answers `{ applied: true, plan }`. Rules are built, merged and validated by core's governance helpers
 * exactly as `weft override` / `weft route` do; a rule they refuse answers 400 with their message.
 * @example
 * ```ts
 * const answer = await actions.setMock(request, 'org.acme.Greeter');
 * ```
 */
export class ActionApi {
  constructor(private readonly context: ActionContext) {}

  private get session(): RegistrySession {
    return this.context.session;
  }

  /** `POST /api/services/<iface>/mock` `{ method?, mock, confirm? }`. */
  async setMock(request: ApiRequest, name: string): Promise<unknown> {
    const body = await request.body();
    const service = await this.context.view.known(name);
    const method = await this.methodOf(body, service);
    const mock = requiredString(body, 'mock', 'the mock expression (force:return null, fail:throw, force:return "text")').trim();
    if (mockMode(mock) === 'none') throw new HttpError(400, `mock "${mock.slice(0, 200)}" turns mocking off: use DELETE /api/services/${service}/mock to remove a mock`);
    const key = method === undefined ? 'mock' : `${method}.mock`;
    const change = await this.mergeInto(service, EVERYONE, new Map([[key, mock]]));
    const refused = refusalOf(await this.valueChecks(service, method, mock));
    if (refused !== undefined) throw new HttpError(400, `rejected, nothing written: ${refused}`);
    const plan = this.overridePlan(service, change, `Mock ${method ?? 'every method'} of ${service} with "${mock}" for every consumer`, ['override', 'set', '--registry', this.context.registryText, '--service', service, `${key}=${mock}`]);
    return this.finish(request, body, plan, 'mock.set', service, change);
  }

  /** `DELETE /api/services/<iface>/mock` `{ method?, confirm? }`. */
  async removeMock(request: ApiRequest, name: string): Promise<unknown> {
    const body = await request.body();
    const service = await this.context.view.known(name);
    const method = await this.methodOf(body, service);
    const key = method === undefined ? 'mock' : `${method}.mock`;
    const change = await this.removeKeys(service, EVERYONE, [key], `no mock ${method === undefined ? 'for the whole service' : `for ${method}`} is set for every consumer of ${service}`);
    const plan = this.overridePlan(service, change, `Remove the mock of ${method ?? 'every method'} of ${service}`, ['override', 'rm', '--registry', this.context.registryText, '--service', service, key]);
    return this.finish(request, body, plan, 'mock.remove', service, change);
  }

  /**
   * `POST /api/services/<iface>/mock/preview` `{ method?, mock }`: what the consumer would receive — for a method
   * whose registrations declare its return type (`weft.returns`), the value realised to it (`returns` names the
   * type), or `ok: false` with the reason it does not fit; a mock for every method is checked against each.
   */
  async previewMock(request: ApiRequest, name: string): Promise<unknown> {
    const body = await request.body();
    const service = await this.context.view.known(name);
    const method = await this.methodOf(body, service);
    const mock = requiredString(body, 'mock', 'the mock expression to preview').trim();
    const mode = mockMode(mock);
    if (mode === 'none') return { ok: true, mode, value: null, note: 'no mock: calls go to the providers' };
    const key = method === undefined ? 'mock' : `${method}.mock`;
    const problems = await validateOverrideRule(this.session, new URL({ protocol: 'override', host: '0.0.0.0', path: service, parameters: { [key]: mock } }), service);
    if (problems.length > 0) return { ok: false, error: problems.join('; ') };
    let action;
    try {
      action = parseMockAction(mock);
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
    if (action.kind === 'throw') {
      return { ok: true, mode, throws: action.errorName === undefined ? 'RpcError: mocked exception for service degradation.' : `${action.errorName} (a registered or declared error class)` };
    }
    if (action.kind === 'implementation') return { ok: true, mode, implementation: action.name };
    const checks = await this.valueChecks(service, method, mock);
    const refused = refusalOf(checks);
    if (refused !== undefined) return { ok: false, error: refused };
    const typed = method === undefined ? undefined : checks[0];
    if (typed?.checked === true) return { ok: true, mode, returns: typed.returns, value: typed.value === undefined ? undefined : toJsonValue(typed.value) };
    try {
      const value = toJsonValue(MockLiteral.parse(action.text).valueFor(undefined));
      if (typed !== undefined) return { ok: true, mode, returns: typed.returns, value, note: `not checked against ${typed.returns}: the console cannot rebuild that type` };
      return { ok: true, mode, value };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }

  /**
   * The value of a `return …` mock checked against the registered return type of `method`, or of every method
   * whose type is registered (a mock for the whole service); none for other mocks and for untyped methods.
   */
  private async valueChecks(service: string, method: string | undefined, mock: string): Promise<MockValueCheck[]> {
    let action;
    try {
      action = parseMockAction(mock);
    } catch {
      return []; // the grammar check reports it
    }
    if (action.kind !== 'return') return [];
    const text = action.text;
    const types = this.context.view.returnTypes(await this.context.view.read(service));
    const methods = method === undefined ? [...types.keys()].sort() : types.has(method) ? [method] : [];
    return methods.map((m) => checkMockValue(text, m, types.get(m) as string));
  }

  /** `POST /api/services/<iface>/override` `{ address?, method?, timeout?, retries?, weight?, confirm? }`. */
  async setOverride(request: ApiRequest, name: string): Promise<unknown> {
    const body = await request.body();
    const service = await this.context.view.known(name);
    const method = await this.methodOf(body, service);
    const values = new Map<string, string>();
    for (const [key, min] of [['timeout', 1], ['retries', 0], ['weight', 0]] as const) {
      const value = optionalCount(body, key, min);
      if (value !== undefined) values.set(method === undefined || key === 'weight' ? key : `${method}.${key}`, value);
    }
    if (values.size === 0) throw new HttpError(400, 'nothing to set: give at least one of "timeout", "retries", "weight"');
    const address = optionalString(body, 'address');
    const id = address === undefined ? EVERYONE : await this.addressIdentity(service, address, values.has('weight'));
    const change = await this.mergeInto(service, id, values);
    const settings = [...values].map(([k, v]) => `${k}=${v}`);
    const where = address === undefined ? 'every consumer' : address;
    const plan = this.overridePlan(service, change, `Set ${settings.join(', ')} on ${service} for ${where}`, [
      'override',
      'set',
      '--registry',
      this.context.registryText,
      '--service',
      service,
      ...(address === undefined ? [] : ['--address', address]),
      ...settings,
    ]);
    return this.finish(request, body, plan, 'override.set', service, change);
  }

  /** `POST /api/services/<iface>/providers/disable|enable` `{ address, confirm? }`. */
  async setProviderEnabled(request: ApiRequest, name: string, enable: boolean): Promise<unknown> {
    const body = await request.body();
    const service = await this.context.view.known(name);
    const address = requiredString(body, 'address', 'the provider address host:port');
    const id = await this.addressIdentity(service, address, true);
    const change = enable
      ? await this.removeKeys(service, id, ['disabled'], `the provider ${address} of ${service} is not disabled by an override rule`)
      : await this.mergeInto(service, id, new Map([['disabled', 'true']]));
    const words = enable ? ['override', 'rm', '--registry', this.context.registryText, '--service', service, '--address', address, 'disabled'] : ['override', 'set', '--registry', this.context.registryText, '--service', service, '--address', address, 'disabled=true'];
    const plan = this.overridePlan(service, change, `${enable ? 'Enable' : 'Disable'} the provider ${address} of ${service}${enable ? '' : ': consumers stop calling it'}`, words);
    return this.finish(request, body, plan, enable ? 'provider.enable' : 'provider.disable', service, change);
  }

  /** `POST /api/services/<iface>/breaker` `{ state: open|closed|auto, method?, confirm? }`. */
  async setBreaker(request: ApiRequest, name: string): Promise<unknown> {
    const body = await request.body();
    const service = await this.context.view.known(name);
    const method = await this.methodOf(body, service);
    const state = requiredString(body, 'state', 'open, closed or auto');
    if (state !== 'open' && state !== 'closed' && state !== 'auto') throw new HttpError(400, `"state": "${state.slice(0, 50)}" is not open, closed or auto`);
    const key = method === undefined ? 'circuitbreaker.force' : `${method}.circuitbreaker.force`;
    const change =
      state === 'auto'
        ? await this.removeKeys(service, EVERYONE, [key], `the circuit breaker of ${method ?? service} is not forced`)
        : await this.mergeInto(service, EVERYONE, new Map([[key, state]]));
    const words = state === 'auto' ? ['override', 'rm', '--registry', this.context.registryText, '--service', service, key] : ['override', 'set', '--registry', this.context.registryText, '--service', service, `${key}=${state}`];
    const summary = state === 'auto' ? `Let the statistics drive the circuit breaker of ${method ?? service} again` : `Force the circuit breaker of ${method ?? service} ${state}`;
    return this.finish(request, body, this.overridePlan(service, change, summary, words), 'breaker.set', service, change);
  }

  /** `POST /api/services/<iface>/routes` `{ kind: condition|tag, text, application?, confirm? }`. */
  async setRoute(request: ApiRequest, name: string): Promise<unknown> {
    const body = await request.body();
    const service = await this.context.view.known(name);
    const kind = this.kindOf(body);
    const text = requiredString(body, 'text', kind === 'condition' ? 'the condition rule ("method = find* => host != 10.20.153.11")' : 'the tag rule YAML');
    if (kind === 'condition') {
      const rule = buildConditionRouteUrl(service, text.trim(), {});
      const problems = await this.session.checkRoutingRule('condition', rule);
      if (problems.length > 0) throw new HttpError(400, `rejected, nothing written: the rule "${text.trim().slice(0, 200)}": ${problems.join('; ')}`);
      const existing = await readConditionRoutes(this.session, service);
      const write = existing.some((u) => u.equals(rule)) ? [] : [rule];
      const rules = write.map((u) => this.planned('write', u));
      const plan: Plan = { summary: `Route ${service}: ${text.trim()}`, rules, zkCli: zkCliOf(rules), cli: weftCommand(['route', 'add', '--registry', this.context.registryText, '--service', service, text.trim()]) };
      return this.finishRoutes(request, body, plan, 'route.set', service, write, []);
    }
    const { node, path, key } = await this.tagNode(body, service);
    const problems = await this.session.checkRoutingRule('tag', routeRuleUrl('tag', key, path, text));
    if (problems.length > 0) throw new HttpError(400, `rejected, nothing written: the tag rule for ${path}: ${problems.join('; ')}`);
    const rules: PlannedRule[] = [{ op: 'write', node: path, url: text }];
    const zkCli = zkCliOf([{ op: 'write', node: this.zookeeperDocument(node), url: text }], true);
    const plan: Plan = { summary: `Tag-route the providers of application ${key}`, rules, zkCli, cli: weftCommand(['route', 'put', '--registry', this.context.registryText, '--kind', 'tag', '--key', key, '--yaml', text]) };
    return this.finishDocument(request, body, plan, 'route.set', service, node, text);
  }

  /** `DELETE /api/services/<iface>/routes` `{ kind, text?, application?, confirm? }`. */
  async removeRoute(request: ApiRequest, name: string): Promise<unknown> {
    const body = await request.body();
    const service = await this.context.view.known(name);
    const kind = this.kindOf(body);
    if (kind === 'condition') {
      const text = optionalString(body, 'text')?.trim();
      const existing = await readConditionRoutes(this.session, service);
      const targets = text === undefined ? existing : existing.filter((u) => conditionRouteText(u) === text);
      if (targets.length === 0) {
        throw new HttpError(404, `no condition route of ${service} ${text === undefined ? 'exists' : `is "${text.slice(0, 200)}"`} (routes: ${existing.map((u) => `"${conditionRouteText(u)}"`).join(', ') || 'none'})`);
      }
      const rules = targets.map((u) => this.planned('delete', u));
      const plan: Plan = {
        summary: `Remove ${targets.length === 1 ? 'the condition route' : `${targets.length} condition routes`} of ${service}`,
        rules,
        zkCli: zkCliOf(rules),
        cli: weftCommand(['route', 'rm', '--registry', this.context.registryText, '--service', service, ...(text === undefined ? ['--all'] : [text])]),
      };
      return this.finishRoutes(request, body, plan, 'route.remove', service, [], targets);
    }
    const { node, path, key } = await this.tagNode(body, service);
    const before = await this.session.call(`reading ${path}`, () => this.session.registry.getConfig(node));
    if (before === undefined) throw new HttpError(404, `there is no tag rule at ${path}; nothing to remove`);
    const rules: PlannedRule[] = [{ op: 'delete', node: path, url: before }];
    const zkCli = zkCliOf([{ op: 'delete', node: this.zookeeperDocument(node), url: before }], true);
    const plan: Plan = { summary: `Remove the tag rule of application ${key}`, rules, zkCli, cli: weftCommand(['route', 'rm', '--registry', this.context.registryText, '--kind', 'tag', '--key', key]) };
    return this.finishDocument(request, body, plan, 'route.remove', service, node, undefined);
  }

  // ---- helpers ---------------------------------------------------------------------------------------------------

  private kindOf(body: Record<string, unknown>): 'condition' | 'tag' {
    const kind = optionalString(body, 'kind') ?? 'condition';
    if (kind !== 'condition' && kind !== 'tag') throw new HttpError(400, `"kind": "${kind.slice(0, 50)}" is not condition or tag`);
    return kind;
  }

  /** The tag rule's node of the service's provider application (`application` in the body, else the only one). */
  private async tagNode(body: Record<string, unknown>, service: string): Promise<{ node: string; path: string; key: string }> {
    const state = await this.context.view.read(service);
    const apps = [...new Set(state.providers.map((p) => p.getApplication()).filter((a): a is string => a !== undefined && a !== ''))].sort();
    const given = optionalString(body, 'application');
    let key: string;
    if (given !== undefined) {
      if (apps.length > 0 && !apps.includes(given)) {
        const near = closestName(given, apps);
        throw new HttpError(404, `application ${given} provides no ${service} (provider applications: ${apps.join(', ')})${near !== undefined ? `; did you mean ${near}?` : ''}`);
      }
      key = given;
    } else if (apps.length === 1) {
      key = apps[0] as string;
    } else {
      throw new HttpError(400, `give "application": tag rules belong to a provider application, and ${service} has ${apps.length === 0 ? 'no providers' : `several (${apps.join(', ')})`}`);
    }
    const node = routeRuleNode('tag', key);
    const path = this.session.registry.configPath(node);
    if (path === undefined) {
      throw new HttpError(400, `${this.session.address} has no config centre (config-center=false): tag rules need one (condition routes work with every registry)`);
    }
    return { node, path, key };
  }

  /** Where ZooKeeper keeps config-centre document `node` (the zkCli equivalent; the embedded registry keeps a file). */
  private zookeeperDocument(node: string): string {
    const url = this.session.registry.getUrl();
    return `/${url.getParameter('config.namespace') ?? 'dubbo'}/config/${url.getParameter('config.group') ?? 'dubbo'}/${node}`;
  }

  /** The method of the body (`method`), checked against the methods the registrations declare. */
  private async methodOf(body: Record<string, unknown>, service: string): Promise<string | undefined> {
    const method = optionalString(body, 'method');
    if (method === undefined || method === '') return undefined;
    if (!METHOD_NAME.test(method)) throw new HttpError(400, `"method": "${method.slice(0, 100)}" is not a method name`);
    const methods = this.context.view.methods(await this.context.view.read(service));
    if (methods.length > 0 && !methods.includes(method)) {
      const near = closestName(method, methods);
      throw new HttpError(404, `unknown method ${method} of ${service} (methods: ${methods.join(', ')})${near !== undefined ? `; did you mean ${near}?` : ''}`);
    }
    return method;
  }

  /** The identity of a rule for `address`: a registered provider's host:port, or a consumer's host. */
  private async addressIdentity(service: string, address: string, providerOnly: boolean): Promise<OverrideIdentity> {
    const state = await this.context.view.read(service);
    const providers = [...new Set(state.providers.map((p) => p.getAddress()))].sort();
    const consumers = providerOnly ? [] : [...new Set(state.consumers.map((c) => c.host))].sort();
    if (!providers.includes(address) && !consumers.includes(address)) {
      const known = [...providers, ...consumers];
      const near = closestName(address, known);
      throw new HttpError(
        404,
        `no ${providerOnly ? 'provider' : 'provider or consumer'} of ${service} at ${address.slice(0, 100)} (${providerOnly ? 'providers' : 'addresses'}: ${known.join(', ') || 'none'})${near !== undefined ? `; did you mean ${near}?` : ''}`,
      );
    }
    const at = new URL({ protocol: 'override', path: service }).withAddress(address);
    return { host: at.host, port: at.port, group: undefined, version: undefined, application: undefined };
  }

  /** Merges `values` into the rule with identity `id` (as `weft override set`), validated; 400 with the problems. */
  private async mergeInto(service: string, id: OverrideIdentity, values: ReadonlyMap<string, string>): Promise<OverrideChange> {
    const existing = await readOverrideRules(this.session, service);
    const { rule, replaced, unchanged, same } = mergeOverrideRule(existing, service, id, values);
    const requested = new URL({ protocol: 'override', host: id.host, port: id.port, path: service, parameters: [...values] });
    const early = overrideNumericProblems(requested);
    if (early.length > 0) throw new HttpError(400, `rejected, nothing written: ${early.join('; ')}`);
    const problems = await validateOverrideRule(this.session, requested, service);
    if (problems.length > 0) throw new HttpError(400, `rejected, nothing written: ${problems.join('; ')}`);
    if (same.length > 0) {
      const merged = await validateOverrideRule(this.session, rule, service);
      if (merged.length > 0) throw new HttpError(400, `rejected, nothing written: merged with the existing rule ${same.map((r) => r.toString()).join(', ')} it is invalid: ${merged.join('; ')}`);
    }
    return unchanged ? { write: [], remove: [] } : { write: [rule], remove: replaced };
  }

  /** Removes `keys` from the rule with identity `id` (as `weft override rm <key>`); 404 when no rule sets them. */
  private async removeKeys(service: string, id: OverrideIdentity, keys: readonly string[], none: string): Promise<OverrideChange> {
    const existing = await readOverrideRules(this.session, service);
    const targets = existing.filter((r) => sameOverrideIdentity(r, id) && keys.some((k) => overrideSettings(r).has(k)));
    if (targets.length === 0) throw new HttpError(404, `${none}; nothing to remove`);
    const write: URL[] = [];
    for (const rule of targets) {
      const next = withoutOverrideKeys(rule, keys);
      if (next !== undefined) write.push(next);
    }
    return { write, remove: targets };
  }

  private planned(op: 'write' | 'delete', rule: URL): PlannedRule {
    return { op, node: nodeOf(this.session.registry, this.session.url, rule), url: rule.toString() };
  }

  private overridePlan(service: string, change: OverrideChange, summary: string, words: readonly string[]): Plan {
    const rules = [...change.write.map((u) => this.planned('write', u)), ...change.remove.map((u) => this.planned('delete', u))];
    return { summary: rules.length === 0 ? `${summary} (already so: nothing to change)` : summary, rules, zkCli: zkCliOf(rules), cli: weftCommand(words) };
  }

  private async record(request: ApiRequest, action: string, service: string, plan: Plan): Promise<void> {
    if (plan.rules.length === 0) return; // nothing changed: nothing to audit
    await this.context.audit.record({
      at: new Date().toISOString(),
      who: request.who,
      action,
      service,
      rule: plan.rules.map((r) => `${r.op} ${r.url}`).join('\n'),
      zkCli: plan.zkCli.join('\n'),
      cli: plan.cli,
    });
  }

  /** Applies an override change (write first, then remove), reads it back, audits. */
  private async finish(request: ApiRequest, body: Record<string, unknown>, plan: Plan, action: string, service: string, change: OverrideChange): Promise<unknown> {
    if (!confirmed(body)) return { plan };
    for (const rule of change.write) await this.session.call(`writing ${rule.toString()}`, () => this.session.registry.register(rule));
    for (const rule of change.remove) {
      if (change.write.some((w) => w.equals(rule))) continue;
      await this.session.call(`removing ${rule.toString()}`, () => this.session.registry.unregister(rule));
    }
    const now = await readOverrideRules(this.session, service);
    const missing = change.write.filter((r) => !now.some((u) => u.equals(r)));
    const kept = change.remove.filter((r) => now.some((u) => u.equals(r)) && !change.write.some((w) => w.equals(r)));
    if (missing.length + kept.length > 0) {
      const what = [...missing.map((r) => `${r.toString()} is not there`), ...kept.map((r) => `${r.toString()} is still there`)].join('; ');
      throw new HttpError(502, `the registry ${this.session.address} did not take the change: reading it back, ${what}${this.session.reported()}`);
    }
    await this.record(request, action, service, plan);
    return { applied: true, plan };
  }

  /** Applies a change of legacy routing rules, reads it back, audits. */
  private async finishRoutes(request: ApiRequest, body: Record<string, unknown>, plan: Plan, action: string, service: string, write: readonly URL[], remove: readonly URL[]): Promise<unknown> {
    if (!confirmed(body)) return { plan };
    for (const rule of write) await this.session.call(`writing ${rule.toString()}`, () => this.session.registry.register(rule));
    for (const rule of remove) await this.session.call(`removing ${rule.toString()}`, () => this.session.registry.unregister(rule));
    const now = await readConditionRoutes(this.session, service);
    if (write.some((r) => !now.some((u) => u.equals(r))) || remove.some((r) => now.some((u) => u.equals(r)))) {
      throw new HttpError(502, `the registry ${this.session.address} did not take the change of the routing rules of ${service}${this.session.reported()}`);
    }
    await this.record(request, action, service, plan);
    return { applied: true, plan };
  }

  /** Writes (or deletes) a config-centre document, reads it back, audits. */
  private async finishDocument(request: ApiRequest, body: Record<string, unknown>, plan: Plan, action: string, service: string, node: string, text: string | undefined): Promise<unknown> {
    if (!confirmed(body)) return { plan };
    const path = plan.rules[0]?.node ?? node;
    await this.session.call(`${text === undefined ? 'deleting' : 'writing'} ${path}`, () => this.session.registry.publishConfig(node, text));
    const back = await this.session.call(`reading ${path} back`, () => this.session.registry.getConfig(node));
    if (back !== text) throw new HttpError(502, `the registry ${this.session.address} did not keep the change of ${path}${this.session.reported()}`);
    await this.record(request, action, service, plan);
    return { applied: true, plan };
  }
}

/** A value as JSON would carry it (bigint as a string, Dates as ISO text, class instances as plain objects, Maps as objects, Sets and byte arrays as arrays). */
function toJsonValue(value: unknown): unknown {
  const replacer = (_k: string, v: unknown): unknown =>
    typeof v === 'bigint' ? v.toString() : v instanceof Map ? Object.fromEntries([...v].map(([k, x]) => [String(k), x])) : v instanceof Set || v instanceof Uint8Array ? [...v] : v;
  return JSON.parse(JSON.stringify(value, replacer) ?? 'null');
}
