// What @weft/filter-metrics and @weft/filter-tracing add to a call, in fresh processes (this file run directly is
// one sample: it prints one JSON line; `benchObservability` runs it several times and reports the medians).
//
// Rows, one application each (the same injvm zero-copy call, timeout 0, synchronous implementation):
//   base     @weft/core + @weft/cluster + @weft/filter-context (the usual chains: context, consumercontext)
//   metrics  + @weft/filter-metrics   (the filter runs in the consumer and the provider chain)
//   tracing  + @weft/filter-tracing with no SDK (the API's no-op tracer)
//   sdk      + @weft/filter-tracing with @opentelemetry/sdk-trace-base (SimpleSpanProcessor → InMemorySpanExporter)
// Also one filter alone in a chain of one, around a terminal answering a completed Result, vs the empty chain.
// These six rows are timed in interleaved rounds (alternate.mjs, 10th percentile of the rounds); the SDK rows after.
//   node --expose-gc packages/benchmarks/bench/observability.mjs
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { buildFilterChain, defineService, Filter, Invocation, Invoker, Logger, Result, URL, WeftApplication } from '@weft/core';

import { formatRatio, measure, printTable, summarize } from '../../core/bench/harness.mjs';

import { alternate } from './alternate.mjs';

const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

async function sample() {
  const { createTestApp } = await import('@weft/test-utils');
  const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
  const impl = { sayHello: (name) => `hello ${name}` };
  const options = { warmupMs: 1000 };
  const roots = [];
  /** An application with `extra` packages, exporting and referring Greeter over injvm (zero-copy, timeout 0). */
  async function stack(name, extra) {
    const root = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-context', ...extra], { prefix: `weft-bench-${name}` });
    roots.push(root);
    const app = await WeftApplication.start({ root: root.root, name: `bench-${name}`, logger: silent });
    await app.export(Greeter, impl);
    const greeter = await app.refer(Greeter, { timeout: 0, parameters: { copy: 'false' } });
    return { app, greeter };
  }
  const base = await stack('base', []);
  const metrics = await stack('metrics', ['@weft/filter-metrics']);
  const tracing = await stack('tracing', ['@weft/filter-tracing']);

  // One filter alone: a provider-side chain of one around a terminal that answers a completed Result.
  const url = URL.parse('injvm://127.0.0.1/bench.Greeter?interface=bench.Greeter&side=provider');
  const done = Result.of('ok');
  class Terminal extends Invoker {
    getUrl() {
      return url;
    }
    invoke() {
      return done;
    }
  }
  const terminal = new Terminal();
  const empty = buildFilterChain(terminal, [], () => 'none', silent);
  const withMetrics = buildFilterChain(terminal, [metrics.app.model.getExtensionLoader(Filter).getExtension('metrics')], () => 'metrics', silent);
  const withTracing = buildFilterChain(terminal, [tracing.app.model.getExtensionLoader(Filter).getExtension('tracing')], () => 'tracing', silent);
  const invocation = Invocation.of('sayHello', ['ann'], Greeter);

  // Interleaved rounds (alternate.mjs): the rows without the SDK see the same machine load, so the differences
  // (tens of ns) are not buried under the drift of a shared machine between rows measured one after another.
  const [baseRow, metricsRow, tracingRow, chainEmptyRow, chainMetricsRow, chainTracingRow, clockRow] = await alternate([
    { name: 'base', fn: () => base.greeter.sayHello('ann') },
    { name: 'metrics', fn: () => metrics.greeter.sayHello('ann') },
    { name: 'tracing', fn: () => tracing.greeter.sayHello('ann') },
    { name: 'chain', fn: async () => empty.invoke(invocation) },
    { name: 'chain+metrics', fn: async () => withMetrics.invoke(invocation) },
    { name: 'chain+tracing', fn: async () => withTracing.invoke(invocation) },
    // The floor of any timing filter: one clock read (the metrics filter makes two per injvm call).
    { name: 'performance.now()', fn: () => performance.now() },
  ]);
  const out = {
    base: baseRow.nsPerOp,
    metrics: metricsRow.nsPerOp,
    tracingNoop: tracingRow.nsPerOp,
    chainEmpty: chainEmptyRow.nsPerOp,
    chainMetrics: chainMetricsRow.nsPerOp,
    chainTracingNoop: chainTracingRow.nsPerOp,
    clockRead: clockRow.nsPerOp,
  };

  // Then the SDK, globally (it cannot be undone in this process): spans recorded and exported to memory.
  const { trace, context, propagation } = await import('@opentelemetry/api');
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  let calls = 0;
  const bounded = (fn) => () => {
    if (++calls === 4096) {
      calls = 0;
      exporter.reset();
    }
    return fn();
  };
  out.tracingSdk = (await measure('tracing sdk', bounded(() => tracing.greeter.sayHello('ann')), options)).nsPerOp;
  out.chainTracingSdk = (await measure('chain+tracing sdk', bounded(async () => withTracing.invoke(invocation)), options)).nsPerOp;
  for (const s of [base, metrics, tracing]) await s.app.shutdown();
  for (const root of roots) root.cleanup();
  return out;
}

/** Runs the samples in fresh processes and adds the figures of run.mjs. */
export async function benchObservability(figures) {
  const script = fileURLToPath(import.meta.url);
  const processes = Number(process.env.WEFT_BENCH_PROCESSES ?? 5);
  const samples = [];
  for (let i = 0; i < processes; i++) {
    const out = execFileSync(process.execPath, ['--expose-gc', script, '--sample'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    samples.push(JSON.parse(out.trim().split('\n').pop()));
  }
  const row = (name, key) => summarize(name, samples.map((s) => s[key]));
  const calls = [
    row('injvm zero-copy call, context filters, no observability', 'base'),
    row('  + @weft/filter-metrics (consumer + provider chain)', 'metrics'),
    row('  + @weft/filter-tracing, no SDK (no-op tracer)', 'tracingNoop'),
    row('  + @weft/filter-tracing, SDK + in-memory exporter', 'tracingSdk'),
  ];
  printTable(`Observability — injvm zero-copy call (median of ${processes} processes)`, calls, { baseline: 'injvm zero-copy call, context filters, no observability' });
  const chain = [
    row('chain of none (completed Result)', 'chainEmpty'),
    row('metrics filter alone', 'chainMetrics'),
    row('tracing filter alone, no-op tracer', 'chainTracingNoop'),
    row('tracing filter alone, SDK + in-memory exporter', 'chainTracingSdk'),
  ];
  printTable(`Observability — one filter in a chain (median of ${processes} processes)`, chain, { baseline: 'chain of none (completed Result)' });
  const median = (key) => summarize(key, samples.map((s) => s[key])).nsPerOp;
  // What a filter adds is taken per process (its rows ran interleaved with the baseline's, on the same JIT state),
  // then the median of those differences: not the difference of two medians taken from different processes.
  const medianOf = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const added = (key) => medianOf(samples.map((s) => s[key] - s.base));
  const alone = (key) => medianOf(samples.map((s) => s[key] - s.chainEmpty));
  const per = (key) => samples.map((s) => (s[key] - s.base).toFixed(0)).join(', ');
  figures.push(
    `metrics: +${added('metrics').toFixed(0)} ns per injvm zero-copy call (goal ≤ 150; both chains, two clock reads; per process: ${per('metrics')}); the filter alone +${alone('chainMetrics').toFixed(0)} ns (two reads); ` +
      `one performance.now() read costs ${median('clockRead').toFixed(0)} ns on this machine (per process: ${samples.map((s) => s.clockRead.toFixed(0)).join(', ')})`,
  );
  figures.push(
    `tracing, no-op tracer: +${added('tracingNoop').toFixed(0)} ns per call (goal ≤ 30; per process: ${per('tracingNoop')}); the filter alone +${alone('chainTracingNoop').toFixed(0)} ns`,
  );
  figures.push(
    `tracing, SDK + in-memory exporter: +${added('tracingSdk').toFixed(0)} ns per call (${formatRatio(median('tracingSdk') / median('base'))} the untraced call; two spans per call); the filter alone +${alone('chainTracingSdk').toFixed(0)} ns`,
  );
}

if (process.argv.includes('--sample')) {
  process.stdout.write(`${JSON.stringify(await sample())}\n`);
  process.exit(0);
}
