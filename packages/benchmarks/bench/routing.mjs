// Per-call routing cost (issue 18): 100 providers, a failover cluster call with random load balancing, through
// a directory that routes with core's RouterChain — no routers, the routers of @weft/routers idle (no rules),
// and 3 routers with rules (tag with a dynamic rule, condition with a service rule, a third-party zone router).
// Also the routing step alone, and a condition rule that reads arguments (evaluated on every call).
import { Cluster, defineService, Directory, Invocation, Invoker, Result, Router, RouterChain, URL, WeftApplication } from '@weft/core';
import { createTestApp } from '@weft/test-utils';
import { ConditionRouter, TagRouter } from '@weft/routers';

import { formatNs, formatRatio, measure, printTable } from '../../core/bench/harness.mjs';

const PROVIDERS = 100;

/** A third-party router: keeps the providers in the consumer's zone (computed when providers change). */
class ZoneRouter extends Router {
  keep = new Set();
  notify(invokers, url) {
    const zone = url.getParameter('zone');
    this.keep = new Set(invokers.filter((i) => zone === undefined || i.getUrl().getParameter('zone') === zone));
  }
  cacheKey() {
    return '';
  }
  route(invokers) {
    return invokers.filter((i) => this.keep.has(i));
  }
}

/** A directory over fixed invokers whose list() is the router chain's answer (what RegistryDirectory does). */
class RoutedDirectory extends Directory {
  constructor(service, url, invokers, chain) {
    super();
    this.service = service;
    this.url = url;
    this.invokers = invokers;
    this.chain = chain;
  }
  getUrl() {
    return this.url;
  }
  getConsumerUrl() {
    return this.url;
  }
  list(invocation) {
    return this.chain === undefined ? this.invokers : this.chain.route(invocation);
  }
  getAllInvokers() {
    return this.invokers;
  }
  isDestroyed() {
    return false;
  }
  destroy() {
    return Promise.resolve();
  }
}

export async function benchRouting(figures, silent) {
  const { root, cleanup } = createTestApp(['@weft/core', '@weft/cluster']);
  const app = await WeftApplication.start({ root, name: 'bench-routing', logger: silent });
  const Users = defineService('bench.Users', { findUser: { args: [Number], returns: String }, getUser: { args: [Number], returns: String } });
  const consumerUrl = URL.parse('consumer://10.0.9.9/bench.Users?interface=bench.Users&side=consumer&application=web&zone=a&methods=findUser,getUser');
  const done = Result.of('ok');
  class Provider extends Invoker {
    constructor(url) {
      super();
      this.url = url;
    }
    getUrl() {
      return this.url;
    }
    invoke() {
      return done;
    }
  }
  // Every router keeps every provider, so the load balance does the same work with and without routers: the
  // difference is the routing itself.
  const invokers = Array.from({ length: PROVIDERS }, (_, i) => new Provider(URL.parse(`tri://10.0.${Math.floor(i / 50)}.${i % 50}:50051/bench.Users?interface=bench.Users&application=users&zone=a`)));
  const context = { service: Users, consumerUrl, logger: silent, providerUrlOf: (i) => i.getUrl() };
  const rule = (router, yaml, source) =>
    new URL({ protocol: 'route', host: '0.0.0.0', path: 'bench.Users', parameters: new Map([['category', 'routers'], ['router', router], ['rule.scope', 'service'], ['rule.source', source], ['rule.yaml', yaml]]) });
  const tagRule = rule('tag', 'tags:\n- name: blue\n  addresses: ["10.9.9.*"]\n', '/dubbo/config/dubbo/users.tag-router');
  const conditionRule = rule('condition', 'conditions:\n- method = find* => host != 10.9.9.3,10.9.9.4\n', '/dubbo/config/dubbo/bench.Users::.condition-router');
  const argumentRule = rule('condition', 'conditions:\n- arguments[0] = 1~1000 => host != 10.9.9.3\n', '/dubbo/config/dubbo/bench.Users::.condition-router');
  const chainOf = (routers, rules) => {
    const chain = new RouterChain(routers, silent);
    chain.setRules(rules);
    chain.setInvokers(invokers, consumerUrl);
    return chain;
  };
  const idle = chainOf([{ name: 'tag', router: new TagRouter(context) }, { name: 'condition', router: new ConditionRouter(context) }], []);
  const three = chainOf([{ name: 'tag', router: new TagRouter(context) }, { name: 'condition', router: new ConditionRouter(context) }, { name: 'zone', router: new ZoneRouter() }], [tagRule, conditionRule]);
  const perCall = chainOf([{ name: 'tag', router: new TagRouter(context) }, { name: 'condition', router: new ConditionRouter(context) }, { name: 'zone', router: new ZoneRouter() }], [tagRule, argumentRule]);
  const selected = three.route(new Invocation({ methodName: 'findUser', args: [7] })).length;

  const failover = app.model.getExtensionLoader(Cluster).getExtension('failover', false);
  const join = (chain) => failover.join(new RoutedDirectory(Users, consumerUrl, invokers, chain));
  const plain = join(undefined);
  const withIdle = join(idle);
  const withThree = join(three);
  const withPerCall = join(perCall);
  const invocation = new Invocation({ methodName: 'findUser', args: [7], service: Users });
  const gray = new Invocation({ methodName: 'findUser', args: [7], attachments: { 'dubbo.tag': 'gray' }, service: Users });

  const steps = [
    await measure('list: no routers', () => invokers),
    await measure('list: tag + condition routers, no rules', () => idle.route(invocation)),
    await measure('list: 3 routers with rules (cached per method)', () => three.route(invocation)),
    await measure('list: 3 routers, tagged call (cached per method and tag)', () => three.route(gray)),
    await measure('list: 3 routers, arguments[0] rule (when-part per call, then cached)', () => perCall.route(invocation)),
  ];
  if (selected !== PROVIDERS) throw new Error(`the bench's rules should keep every provider; they keep ${selected}`);
  printTable(`Routing step alone — ${PROVIDERS} providers, the rules keep all of them`, steps);
  // Interleaved rounds, the median of each row's medians: on a shared machine one burst of load must not decide.
  const names = ['failover call, no routers', 'failover call, tag + condition routers, no rules', 'failover call, 3 routers with rules', 'failover call, 3 routers, arguments[0] rule'];
  const targets = [plain, withIdle, withThree, withPerCall];
  const rounds = Number(process.env.WEFT_BENCH_QUICK ? 1 : 3);
  const byRow = names.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < names.length; i++) byRow[i].push(await measure(names[i], () => targets[i].invoke(invocation)));
  }
  const calls = byRow.map((rows) => [...rows].sort((a, b) => a.nsPerOp - b.nsPerOp)[Math.floor(rows.length / 2)]);
  printTable(`Cluster call with routing — ${PROVIDERS} providers, random load balance, trivial provider (median of ${rounds} interleaved rounds)`, calls, { baseline: 'failover call, no routers' });
  const [none, idleCall, threeCall, argsCall] = calls;
  figures.push(
    `routing, 3 routers with rules on ${PROVIDERS} providers: the routing step costs ${formatNs(steps[2].nsPerOp)} per call (${formatNs(steps[3].nsPerOp)} for a tagged call, ` +
      `${formatNs(steps[4].nsPerOp)} with a condition on arguments) vs ${formatNs(steps[0].nsPerOp)} without routers; ` +
      `a whole failover call: ${formatRatio(threeCall.min / none.min)} without routers in the fastest rounds (${formatNs(none.min)} → ${formatNs(threeCall.min)})`,
  );
  figures.push(
    `routing, medians (noisy on a shared machine): a failover call with 3 routers costs ${formatRatio(threeCall.nsPerOp / none.nsPerOp)} the same call without routers ` +
      `(${formatNs(none.nsPerOp)} → ${formatNs(threeCall.nsPerOp)}; the routing step alone ${formatNs(steps[2].nsPerOp)}); routers installed without rules ${formatRatio(idleCall.nsPerOp / none.nsPerOp)}; ` +
      `a condition on arguments (when-part evaluated per call) ${formatRatio(argsCall.nsPerOp / none.nsPerOp)}`,
  );
  await app.shutdown();
  cleanup();
}

// Run alone: node --expose-gc packages/benchmarks/bench/routing.mjs
if (import.meta.url === `file://${process.argv[1]}`) {
  const { Logger } = await import('@weft/core');
  const silent = new (class extends Logger {
    debug() {}
    info() {}
    warn() {}
    error() {}
  })();
  const figures = [];
  await benchRouting(figures, silent);
  for (const line of figures) console.log(`  ${line}`);
}
