import { ApplicationModel, ExtensionError, ExtensionErrorCode, type ServiceDefinition, type URL } from '@weft/core';
import { ConfigValidator, Inject } from '@weft/core/spi';

import { MockExpressionCache } from './mock-expression-cache.js';
import { mockMode, shorten } from './mock-expression.js';
import { MockDefaults, MockKeys } from './mock-keys.js';
import { MockRegistry } from './mock-registry.js';

const GRAMMAR =
  'Expected [force:|fail:] followed by "return <value>" (empty, null, true, false, "text", 123, {json}, [json]), ' +
  '"throw", "throw <ErrorName>", true/default/fail (the default mock implementation) or a registered mock name.';

/**
 * Validates `mock` and `<method>.mock` before they take effect — when a reference is created and when an
 * override would change them — so a typo never waits for the first degraded call.
 *
 * @remarks `ConfigValidator` extension `mock`, activated in group `consumer` when `mock` (or a method-level
 * `mock`) is set. Values the mock cluster invoker treats as "no mock" (ConfigUtils-empty once trimmed: `false`,
 * `0`, `null`, `N/A`, blank) are not checked. Checks: the expression parses; a `return` value converts to the
 * declared return type — a method-level value to its method's, an interface-level one to at least one method's
 * (a method it does not fit fails when degraded); `throw <Name>` names an error registered in the
 * {@link MockRegistry} or declared in the `throws` of the method (interface level: of every method); an
 * implementation name is registered for the interface (`true`/`default`/`force`/`fail` need no registration
 * up front: a `mock://` provider may supply the values — with or without a prefix: `force:true`, `fail:default`);
 * the value is within {@link MockLimits}; `mock.log.interval` is a number. Each value is parsed once (an
 * interface-level one is realised per method, not re-parsed) into the application's {@link MockExpressionCache},
 * where the mock invokers find it. Dubbo 3.3 removed all such checks.
 * @example
 * ```ts
 * // count returns Number: ExtensionError ERR_SPI_INVALID_PARAMETER naming count.mock=return {oops
 * await app.refer(Greeter, { methods: { count: { mock: 'return {oops' } } });
 * ```
 */
export class MockConfigValidator extends ConfigValidator {
  constructor(@Inject(ApplicationModel) private readonly app: ApplicationModel) {
    super();
  }

  validate(url: URL, service: ServiceDefinition | undefined, where: string): void {
    const registry = MockRegistry.of(this.app);
    const expressions = MockExpressionCache.of(this.app);
    const methods = service?.methodNames ?? [];
    const seen = new Set<string>();
    const check = (key: string, raw: string | undefined, method: string | undefined) => {
      // What the mock cluster invoker treats as "no mock" (ConfigUtils-empty once trimmed) is never an error.
      if (raw === undefined || mockMode(raw) === 'none' || seen.has(`${key}=${raw}`)) return;
      seen.add(`${key}=${raw}`);
      const fail = (why: string): never => {
        throw new ExtensionError(
          ExtensionErrorCode.INVALID_PARAMETER,
          `${where}: ${key}=${shorten(raw)} is not a valid mock expression: ${why.replace(/\.$/, '')}. ${GRAMMAR}`,
        );
      };
      let action;
      try {
        action = expressions.action(raw);
      } catch (error) {
        return fail((error as Error).message);
      }
      const targets = method !== undefined ? [method] : methods;
      if (action.kind === 'return') {
        // A method-level value must fit its method; an interface-level one must fit at least one method (Dubbo
        // users write `mock=return null` for whole interfaces), and a method it does not fit fails when degraded.
        const problems: string[] = [];
        const literal = expressions.literal(action.text);
        for (const m of targets.length > 0 ? targets : [undefined]) {
          try {
            literal.valueFor(m === undefined ? undefined : service?.getMethod(m));
          } catch (error) {
            problems.push(`${m === undefined ? '' : `for ${m}(): `}${(error as Error).message.replace(/\.$/, '')}`);
          }
        }
        const tried = Math.max(targets.length, 1);
        if (method !== undefined ? problems.length > 0 : problems.length === tried) fail(problems.join('; '));
      } else if (action.kind === 'throw' && action.errorName !== undefined && service !== undefined) {
        // Without the service (a tool validating a rule before writing it) the consumer's declared and registered
        // errors are unknown: only the syntax is checked; the consumer validates again when the rule arrives.
        const name = action.errorName;
        const declared = targets.every((m) => service?.getMethod(m)?.throws.some((c) => c.name === name));
        if (!(declared && targets.length > 0) && registry.getError(name) === undefined) {
          fail(`no error class "${name}" is declared by the method or registered with MockRegistry.registerError (registered: ${registry.errorNames().join(', ') || 'none'})`);
        }
      } else if (action.kind === 'implementation' && service !== undefined) {
        // `true`/`default`/`force`/`fail` (bare or prefixed) may be answered by a mock:// provider that a registry
        // delivers later, so the interface's default implementation is not required up front; a *named* one is.
        if (action.name !== 'default' && registry.getImplementation(service.name, action.name) === undefined) {
          fail(
            `no mock implementation "${action.name}" is registered for ${service.name} ` +
              `(MockRegistry.registerImplementation; registered: ${registry.implementationNames(service.name).join(', ') || 'none'})`,
          );
        }
      }
    };
    try {
      url.getParameter(MockKeys.LOG_INTERVAL, MockDefaults.LOG_INTERVAL);
    } catch (error) {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: ${(error as Error).message}`, { cause: error });
    }
    check('mock', url.getParameter('mock'), undefined);
    for (const method of methods) check(`${method}.mock`, url.getMethodParameterStrict(method, 'mock'), method);
  }
}
