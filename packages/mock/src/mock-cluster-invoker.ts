import { Invoker, Result, RpcError, RpcErrorCode, type ApplicationEvents, type Directory, type Invocation, type Logger, type URL } from '@weft/core';
import { safeLog } from '@weft/core/spi';

import { FailMockWarnings } from './fail-mock-warnings.js';
import { MockExpressionCache } from './mock-expression-cache.js';
import { mockMode, type MockMode } from './mock-expression.js';
import { MockInvoker } from './mock-invoker.js';
import { MockDefaults, MockKeys } from './mock-keys.js';
import type { MockRegistry } from './mock-registry.js';

/**
 * The invoker `MockClusterWrapper` puts around every cluster: decides per call whether to degrade.
 *
 * @remarks
 * On **every call** it reads the mock setting of the invoked method — `<method>.mock`, else `mock` — from the
 * directory's **current** URL (which registry overrides rewrite), so a pushed `force:`/`fail:` rule takes effect
 * on the next call, without re-referring. Decisions are cached per URL object and method (a new URL object after
 * an override means a fresh decision). Then:
 * - unset or ConfigUtils-empty (`false`, `0`, `null`, `N/A`) → the cluster is called, nothing else;
 * - starts with `force` → no provider is called: the mock answers;
 * - anything else (fail mock) → the cluster is called; if it fails with a non-business `RpcError` — rejected or
 *   thrown, or carried by the `Result` (a provider passing on its own downstream call's timeout, a provider
 *   filter's refusal), as Dubbo's `result.getException() instanceof RpcException` — the mock answers; business
 *   errors (a result carrying the implementation's error, or an `RpcError` `biz`) pass through. Each degradation
 *   is reported through the application's {@link FailMockWarnings}: one warning per service and method per
 *   `mock.log.interval` (default 10 s), with the count of the degradations in between.
 * The mock is the first `mock://` provider of the directory if any, else a {@link MockInvoker} on the directory
 * URL. A `mock://` provider's URL was merged with the consumer URL as referred; when overrides have changed
 * `mock` or `<method>.mock` since, a {@link MockInvoker} on the provider URL with the **current** consumer values
 * applied answers instead, like the consumer's own mock without a consumer filter chain (so the effective consumer
 * `<method>.mock` still beats the provider's `<method>.mock`, which beats the effective consumer `mock`; a key an
 * override removed is removed there too — the provider's own value for a key the referred consumer URL also set
 * was already replaced at refer time and does not come back). A bare `throw` rejects with its `RpcError`
 * (`mocked: true`, "mocked exception for service degradation.") unchanged, the degraded failure as its `cause` in
 * fail mode. A failure of the mock itself rejects with an `RpcError` whose message starts `mock error: ` and, in
 * fail mode, ends with the original failure (`, invoke error is: …`).
 *
 * @example
 * ```ts
 * const invoker = new MockClusterInvoker(directory, cluster.join(directory), registry, logger);
 * ```
 */
export class MockClusterInvoker extends Invoker {
  private modes = new WeakMap<URL, Map<string, MockMode>>();
  private localMocks = new WeakMap<URL, MockInvoker>();
  private lastUrl: URL | undefined;
  private lastModes: Map<string, MockMode> | undefined;
  private providedMocks = new WeakMap<Invoker, { readonly url: URL; readonly invoker: Invoker }>();

  constructor(
    private readonly directory: Directory,
    private readonly inner: Invoker,
    private readonly registry: MockRegistry,
    private readonly logger: Logger,
    private readonly expressions: MockExpressionCache = new MockExpressionCache(),
    private readonly warnings: FailMockWarnings = new FailMockWarnings(logger),
    private readonly events?: ApplicationEvents,
  ) {
    super();
  }

  getUrl(): URL {
    return this.directory.getUrl();
  }

  override isAvailable(): boolean {
    return this.directory.isAvailable();
  }

  override destroy(): void | Promise<void> {
    return this.inner.destroy();
  }

  invoke(invocation: Invocation): Result | Promise<Result> {
    const url = this.directory.getUrl();
    const mode = this.modeOf(url, invocation.methodName);
    if (mode === 'none') return this.inner.invoke(invocation);
    if (mode === 'force') return this.forceMock(invocation, url);
    let answer: Result | Promise<Result>;
    try {
      answer = this.inner.invoke(invocation);
    } catch (error) {
      answer = Promise.reject(error);
    }
    // Completed: a value or a business error passes; a framework failure carried by the result degrades.
    if (answer instanceof Result) return frameworkFailureOf(answer) === undefined ? answer : this.degradeResult(answer, invocation, url);
    return this.degradeOnFailure(answer, invocation, url);
  }

  // Closures only off the per-call path: one in `invoke` would cost a context allocation on every call.
  private degradeOnFailure(pending: Promise<Result>, invocation: Invocation, url: URL): Promise<Result> {
    return pending.then(
      (result) => (frameworkFailureOf(result) === undefined ? result : this.degradeResult(result, invocation, url)),
      (error: unknown) => {
        if (!(error instanceof RpcError) || error.isBiz) throw error;
        return this.degrade(invocation, url, error);
      },
    );
  }

  private degradeResult(result: Result, invocation: Invocation, url: URL): Result | Promise<Result> {
    return this.degrade(invocation, url, result.exception as RpcError);
  }

  private degrade(invocation: Invocation, url: URL, failure: RpcError): Result | Promise<Result> {
    let interval: number = MockDefaults.LOG_INTERVAL;
    try {
      interval = url.getParameter(MockKeys.LOG_INTERVAL, MockDefaults.LOG_INTERVAL);
    } catch {
      // Validated at refer/override time; a value that slipped through keeps the default.
    }
    this.warnings.degraded(url.getServiceKey() ?? url.path, invocation.methodName, failure.message, interval);
    if (this.events?.listening('mock.fail') === true) {
      this.events.emit({ type: 'mock.fail', service: url.path, method: invocation.methodName, url, code: failure.code });
    }
    return this.mockInvoke(invocation, url, failure);
  }

  private modeOf(url: URL, method: string): MockMode {
    // One-entry inline cache in front of the WeakMap: consecutive calls see the same directory URL.
    let perMethod = url === this.lastUrl ? this.lastModes : this.modes.get(url);
    if (perMethod === undefined) this.modes.set(url, (perMethod = new Map()));
    this.lastUrl = url;
    this.lastModes = perMethod;
    let mode = perMethod.get(method);
    if (mode === undefined) {
      mode = mockMode(url.getMethodParameter(method, 'mock'));
      perMethod.set(method, mode);
    }
    return mode;
  }


  /**
   * The `mock://` provider as seen with the directory's current mock keys: the provider itself while `mock` and
   * `<method>.mock` are as referred, else a {@link MockInvoker} on its URL with the current values applied.
   */
  private withCurrentMockKeys(provided: Invoker, url: URL): Invoker {
    const referred = this.directory.getConsumerUrl();
    const edits = new Map<string, string | undefined>();
    for (const [key, value] of referred.parameters) if (isMockKey(key) && url.parameters.get(key) !== value) edits.set(key, undefined);
    for (const [key, value] of url.parameters) if (isMockKey(key) && referred.parameters.get(key) !== value) edits.set(key, value);
    if (edits.size === 0) return provided;
    const cached = this.providedMocks.get(provided);
    if (cached?.url === url) return cached.invoker;
    const removed = [...edits].filter(([, value]) => value === undefined).map(([key]) => key);
    const current = provided.getUrl().removeParameters(...removed).addParameters(edits);
    const invoker = new MockInvoker(current, this.directory.service, this.registry, this.expressions);
    this.providedMocks.set(provided, { url, invoker });
    return invoker;
  }

  private forceMock(invocation: Invocation, url: URL): Result | Promise<Result> {
    safeLog(this.logger, 'debug', `force-mock ${url.getServiceKey()}.${invocation.methodName}: no provider is called`);
    if (this.events?.listening('mock.force') === true) this.events.emit({ type: 'mock.force', service: url.path, method: invocation.methodName, url });
    return this.mockInvoke(invocation, url, undefined);
  }

  private mockInvoke(invocation: Invocation, url: URL, failure: RpcError | undefined): Result | Promise<Result> {
    let invoker: Invoker | undefined;
    try {
      invoker = this.directory.listMockInvokers(invocation)[0];
    } catch (error) {
      safeLog(this.logger, 'info', `listing mock:// providers failed, using the consumer's mock setting: ${(error as Error).message}`);
    }
    if (invoker !== undefined) {
      invoker = this.withCurrentMockKeys(invoker, url);
    } else {
      invoker = this.localMocks.get(url);
      if (invoker === undefined) this.localMocks.set(url, (invoker = new MockInvoker(url, this.directory.service, this.registry, this.expressions)));
    }
    let answer: Result | Promise<Result>;
    try {
      answer = invoker.invoke(invocation);
    } catch (error) {
      answer = Promise.reject(error);
    }
    if (answer instanceof Result) return answer;
    return answer.then(undefined, (error: unknown) => {
      const mockError = RpcError.from(error);
      if (mockError.mocked) {
        // A `throw` expression did what it was asked: its error as is, the degraded failure (if any) as the cause.
        throw new RpcError(mockError.code, mockError.message, { cause: failure, mocked: true });
      }
      const context = failure === undefined ? '' : `, invoke error is: ${failure.message}`;
      throw new RpcError(mockError.isBiz ? RpcErrorCode.UNKNOWN : mockError.code, `mock error: ${mockError.message}${context}`, {
        cause: mockError,
        mocked: mockError.mocked,
      });
    });
  }
}

/** The non-business `RpcError` a completed result carries (a framework failure passed on), if any. */
function frameworkFailureOf(result: Result): RpcError | undefined {
  if (!result.hasException()) return undefined;
  const exception = result.exception;
  return exception instanceof RpcError && !exception.isBiz ? exception : undefined;
}

function isMockKey(key: string): boolean {
  return key === 'mock' || key.endsWith('.mock');
}
