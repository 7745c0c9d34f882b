import { ExtensionError, ExtensionErrorCode, type ScopeModel, type ServiceDefinition } from '@weft/core';

import { mockMode, parseMockAction } from './mock-expression.js';

/** An error class a `throw <Name>` mock can raise: constructed with the message. */
export type MockErrorClass = new (message: string) => Error;

/**
 * The mock implementations and error classes an application's mock expressions may name.
 *
 * @remarks
 * Weft never loads a class or module named by configuration (Dubbo instantiates any class named in `mock`, even
 * when the string arrives in a pushed override). Names in mock expressions resolve only to what the application
 * registered here, in code:
 * - `throw <Name>` → an error class registered with `registerError(name, cls)`, or declared in the method's
 *   `throws` list; a **new** instance per call (Dubbo shares one cached instance across calls);
 * - `true` / `default` / `fail` / `force`, bare or after a prefix (`force:true`, `fail:default`) → the
 *   implementation registered for the interface (`registerImplementation(Greeter, impl)`, the `<Interface>Mock`
 *   convention by registration);
 * - any other name → the implementation registered under that name for the interface. A name the grammar reads
 *   otherwise (`true`, `fail`, `return`, `throwaway` = `throw away`, `false`…) is refused: no expression could
 *   reach it.
 * One registry per application scope: `MockRegistry.of(app)`. Register before referring: references are
 * validated against the registry when they are created.
 *
 * @example
 * ```ts
 * MockRegistry.of(app.model)
 *   .registerImplementation(Greeter, { sayHello: async (n) => `cached hello ${n}` })
 *   .registerError('Unavailable', UnavailableError);
 * ```
 */
export class MockRegistry {
  private readonly errors = new Map<string, MockErrorClass>();
  private readonly implementations = new Map<string, Map<string, object>>();

  /** The registry of an application scope, created on first use. */
  static of(scope: ScopeModel): MockRegistry {
    if (!scope.hasService(MockRegistry)) scope.registerService(MockRegistry, new MockRegistry());
    return scope.getService(MockRegistry);
  }

  /** Registers an error class for `throw <name>`. */
  registerError(name: string, cls: MockErrorClass): this {
    if (!/^[A-Za-z_$][\w$.]*$/.test(name)) {
      throw new ExtensionError(ExtensionErrorCode.INVALID_NAME, `MockRegistry.registerError(): ${JSON.stringify(name)} is not a class-like name.`);
    }
    if (typeof cls !== 'function' || !(cls.prototype instanceof Error || cls === Error)) {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `MockRegistry.registerError("${name}"): the class must extend Error.`);
    }
    this.errors.set(name, cls);
    return this;
  }

  /** Registers a mock implementation of a service, under `name` (default: the interface's default mock). */
  registerImplementation(service: ServiceDefinition | string, implementation: object, name = 'default'): this {
    const iface = typeof service === 'string' ? service : service.name;
    if (!/^[-._0-9a-zA-Z]+$/.test(name)) {
      throw new ExtensionError(ExtensionErrorCode.INVALID_NAME, `MockRegistry.registerImplementation(): ${JSON.stringify(name)} is not a valid mock name.`);
    }
    if (name !== 'default') {
      const action = mockMode(name) === 'none' ? undefined : parseMockAction(name);
      if (action?.kind !== 'implementation' || action.name !== name) {
        const reading =
          action === undefined
            ? 'no mock at all'
            : action.kind === 'implementation'
              ? 'the default mock implementation: register it without a name'
              : action.kind === 'return'
                ? `"return ${action.text}"`
                : `"throw${action.errorName === undefined ? '' : ` ${action.errorName}`}"`;
        throw new ExtensionError(
          ExtensionErrorCode.INVALID_NAME,
          `MockRegistry.registerImplementation(): the mock name "${name}" cannot be used: mock=${name} means ${reading}.`,
        );
      }
    }
    let byName = this.implementations.get(iface);
    if (byName === undefined) this.implementations.set(iface, (byName = new Map()));
    byName.set(name, implementation);
    return this;
  }

  /** The error class registered under `name`. */
  getError(name: string): MockErrorClass | undefined {
    return this.errors.get(name);
  }

  /** The implementation registered for an interface under `name`. */
  getImplementation(iface: string, name: string): object | undefined {
    return this.implementations.get(iface)?.get(name);
  }

  /** Names registered for an interface, for messages. */
  implementationNames(iface: string): readonly string[] {
    return [...(this.implementations.get(iface)?.keys() ?? [])];
  }

  /** Registered error names, for messages. */
  errorNames(): readonly string[] {
    return [...this.errors.keys()];
  }
}
