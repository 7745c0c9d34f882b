// Rule scale (issue 18): 10,000 override rules applied by a consumer's RegistryDirectory, (a) in one notification,
// (b) one at a time (10,000 notifications in one turn, each the previous list plus one rule) and (c) one per
// event-loop turn (as a registry delivers a burst of writes: each notification in its own turn),
// against 100 providers. Reports the total time until the directory has applied everything (invokers included)
// and the longest event-loop stall (perf_hooks.monitorEventLoopDelay max). Goal: < 100 ms total, stall < 20 ms.
//   node --expose-gc packages/benchmarks/bench/rule-scale.mjs   (WEFT_RULES=<n>: the rule count; WEFT_RULE_RUNS=<n>: runs per row)
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

import { AbstractRegistry, defineService, Invoker, Logger, RegistryDirectory, Result, URL } from '@weft/core';

const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

const Svc = defineService('bench.RuleScale', { m: { returns: String } });
const PROVIDERS = 100;

/** A registry whose notifications the bench drives: no store, no cache file. */
class BenchRegistry extends AbstractRegistry {
  subscription;
  constructor() {
    super(URL.parse('bench://127.0.0.1:1?file-cache=false'), silent);
  }
  isAvailable() {
    return true;
  }
  async doRegister() {}
  async doUnregister() {}
  async doSubscribe(url) {
    this.subscription = url;
    this.notify(url, 'providers', providerUrls());
    this.notify(url, 'configurators', []);
  }
  async doUnsubscribe() {}
  push(urls) {
    this.notify(this.subscription, 'configurators', urls);
  }
}

class BenchInvoker extends Invoker {
  constructor(url) {
    super();
    this.url = url;
  }
  getUrl() {
    return this.url;
  }
  invoke() {
    return Result.of('ok');
  }
  isAvailable() {
    return true;
  }
  async destroy() {}
}

const protocols = {
  hasExtension: () => true,
  describeMissing: () => '',
  getExtension: () => ({ refer: async (_service, url) => new BenchInvoker(url) }),
};

function hostOf(i) {
  return `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

function providerUrls() {
  return Array.from({ length: PROVIDERS }, (_, i) =>
    URL.parse(`tri://${hostOf(i)}:20880/bench.RuleScale?interface=bench.RuleScale&side=provider&application=server&methods=m`),
  );
}

/**
 * The rules: 95 % addressed to one provider (`host:port`, a distinct method key each), 4 % port-less rules for other
 * applications (never this consumer's), 1 % port-less rules for this consumer (they reach every provider).
 */
function ruleUrls(n) {
  const rules = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 100;
    if (kind < 95) {
      rules.push(URL.parse(`override://${hostOf(i % PROVIDERS)}:20880/bench.RuleScale?category=configurators&dynamic=false&m${i}.timeout=${1000 + i}`));
    } else if (kind < 99) {
      rules.push(URL.parse(`override://0.0.0.0/bench.RuleScale?category=configurators&dynamic=false&application=other${i}&timeout=${i}`));
    } else {
      rules.push(URL.parse(`override://0.0.0.0/bench.RuleScale?category=configurators&dynamic=false&application=bench&priority=${i}&k${i}=v`));
    }
  }
  return rules;
}

async function newDirectory() {
  const registry = new BenchRegistry();
  const consumerUrl = URL.parse('consumer://127.0.0.1/bench.RuleScale?interface=bench.RuleScale&side=consumer&application=bench&methods=m');
  const directory = new RegistryDirectory({ service: Svc, consumerUrl, registry, protocols, logger: silent, validate: () => undefined });
  await directory.subscribe();
  return { registry, directory };
}

/**
 * Runs `drive` (its promise, if any, resolves once the source has handed over its last list) and waits until the
 * last of the `n` rules is in force; total wall ms, CPU ms and the longest event-loop stall (ms).
 */
async function timed(directory, drive, n) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await new Promise((r) => setTimeout(r, 5));
  const start = performance.now();
  const cpu = process.cpuUsage();
  const delivered = drive();
  const driving = performance.now() - start; // the source's own synchronous burst (building the lists)
  // A second histogram from the end of the source's burst: the stalls of Weft's own rule processing. (Building 10,000
  // growing lists in one turn costs the source ~25 ms of array copies by itself; that turn is in \`stall\` only.)
  const own = monitorEventLoopDelay({ resolution: 1 });
  own.enable();
  // A registry delivers the last list of a burst in the next event-loop turn; then wait until it is applied.
  await new Promise((r) => setImmediate(r));
  await delivered;
  await directory.settled();
  // A registry coalesces a burst: its latest list may still wait out a quiet window (≤ 50 ms) before it is delivered.
  // The clock stops when the last rule is in force, not when the directory has caught up with what it was given.
  const giveUp = performance.now() + 10_000;
  while (!applied(directory, n) && performance.now() < giveUp) {
    await new Promise((r) => setTimeout(r, 1));
    await directory.settled();
  }
  const total = performance.now() - start;
  const used = process.cpuUsage(cpu);
  await new Promise((r) => setTimeout(r, 5));
  histogram.disable();
  own.disable();
  return { total, driving, cpu: (used.user + used.system) / 1000, stall: histogram.max / 1e6, ownStall: own.max / 1e6 };
}

/** The longest stall of an idle event loop over `ms` in this process: what the machine adds by itself. */
async function idleStall(ms) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await new Promise((r) => setTimeout(r, ms));
  histogram.disable();
  return histogram.max / 1e6;
}

function applied(directory, n) {
  const last = n - 1 - ((n - 1) % 100 >= 95 ? (n - 1) % 100 - 94 : 0);
  const key = `m${last}.timeout`;
  return directory.getAllInvokers().some((i) => i.getUrl().getParameter(key) === String(1000 + last));
}

/**
 * The three ways the rules arrive. Each drives `registry` with `rules` and resolves once the source has handed over
 * its last list: (a) one notification, (b) one at a time — 10,000 notifications in one turn, each the previous list
 * plus one rule — and (c) one per event-loop turn, as a registry delivers a burst of writes.
 */
const SCENARIOS = [
  ['one notification', (registry, rules) => registry.push(rules)],
  [
    'one at a time',
    (registry, rules) => {
      for (let i = 1; i <= rules.length; i++) registry.push(rules.slice(0, i));
    },
  ],
  [
    'one per turn',
    (registry, rules) =>
      new Promise((resolve) => {
        let pushed = 0;
        const next = () => {
          registry.push(rules.slice(0, ++pushed));
          if (pushed < rules.length) setImmediate(next);
          else resolve();
        };
        setImmediate(next);
      }),
  ],
];

/**
 * One timed run of a scenario on a fresh directory. (No forced GC before it: after `gc()` the engine's sweeping and
 * heap regrowth land in the timed run, which then takes up to twice as long.)
 */
async function runScenario(drive, rules) {
  const { registry, directory } = await newDirectory();
  const r = await timed(directory, () => drive(registry, rules), rules.length);
  if (!applied(directory, rules.length)) throw new Error('the last rule was not applied');
  await directory.destroy();
  return r;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function benchRuleScale(figures, n = Number(process.env.WEFT_RULES ?? 10_000), runs = Number(process.env.WEFT_RULE_RUNS ?? 5)) {
  const rules = ruleUrls(n);
  // Warm-up (JIT): each scenario once on a throwaway directory, so that the rows measure a consumer's steady state
  // rather than the compilation of the code paths each is the first to take.
  for (const [, drive] of SCENARIOS) await runScenario(drive, ruleUrls(n));
  const idle = await idleStall(1000);
  const rows = [];
  for (const [name, drive] of SCENARIOS) {
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await runScenario(drive, rules));
    rows.push([name, results]);
  }
  // The same source with no registry behind it: what building and handing over 10,000 growing lists costs by itself.
  const sourceAlone = await new Promise((resolve) => {
    const start = performance.now();
    let pushed = 0;
    let sink = 0;
    const next = () => {
      sink += rules.slice(0, ++pushed).length;
      if (pushed < n) setImmediate(next);
      else resolve({ ms: performance.now() - start, sink });
    };
    setImmediate(next);
  });
  console.log(`\nOverride rules applied by a RegistryDirectory (${n} rules, ${PROVIDERS} providers; median of ${runs} runs, each on a fresh directory; goal < 100 ms total, stall < 20 ms)`);
  for (const [name, results] of rows) {
    const pick = (key) => median(results.map((r) => r[key]));
    const range = (key) => `${Math.min(...results.map((r) => r[key])).toFixed(1)}–${Math.max(...results.map((r) => r[key])).toFixed(1)}`;
    const worst = (key) => Math.max(...results.map((r) => r[key]));
    console.log(
      `  ${name.padEnd(18)} total ${pick('total').toFixed(1).padStart(7)} ms (${range('total')})   cpu ${pick('cpu').toFixed(1).padStart(7)} ms   ` +
        `event-loop delay max ${worst('stall').toFixed(1).padStart(6)} ms, after the source's burst ${worst('ownStall').toFixed(1).padStart(6)} ms   (source's own burst ${pick('driving').toFixed(1)} ms)`,
    );
    figures.push(
      `${n} override rules, ${name}: ${pick('total').toFixed(1)} ms total (median of ${runs}; runs ${range('total')} ms; ${pick('cpu').toFixed(1)} ms CPU), ` +
        `max event-loop stall ${worst('stall').toFixed(1)} ms over the runs (after the source's burst: ${worst('ownStall').toFixed(1)} ms), ` +
        `of which the notifying source's own synchronous burst ${pick('driving').toFixed(1)} ms (goal < 100 ms, < 20 ms)`,
    );
  }
  console.log(`  one per turn, the source alone (no registry): ${sourceAlone.ms.toFixed(1)} ms`);
  figures.push(`${n} override rules, one per turn: the notifying source alone (building and handing over the lists, no registry) takes ${sourceAlone.ms.toFixed(1)} ms of that total`);
  console.log(`  idle event loop, same process, 1 s: max stall ${idle.toFixed(1)} ms (what the machine adds by itself)`);
  figures.push(`idle event loop in the rule-scale process: max stall ${idle.toFixed(1)} ms over 1 s (machine noise floor)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Run directly (run.mjs does, in a fresh process): the table, then the figures — as one JSON line with `--json`.
  const figures = [];
  await benchRuleScale(figures);
  if (process.argv.includes('--json')) console.log(JSON.stringify({ figures }));
  else for (const line of figures) console.log(line);
}
