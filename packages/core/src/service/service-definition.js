import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
const METHOD_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/**
 * A typed service definition: the interface name and its methods, known at runtime.
 *
 * @remarks
 * Created with {@link defineService}. TypeScript infers the proxy type ({@link ServiceProxy}) and the
 * implementation type ({@link ServiceImplementation}) from it, so call sites need no casts. Return types are
 * known at runtime: the mock package realises `return` values against them.
 *
 * @example
 * ```ts
 * const Greeter = defineService('org.acme.Greeter', {
 *   sayHello: { args: [String], returns: String },
 *   count: { returns: Number },
 * });
 * type GreeterProxy = ServiceProxy<typeof Greeter.methods>;
 * ```
 */
export class ServiceDefinition {
    name;
    methods;
    /** Method descriptors by name. */
    methodDescriptors;
    constructor(
    /** The interface name, e.g. `org.acme.Greeter` (the URL path and `interface` parameter). */
    name, 
    /** The method specs as declared. */
    methods) {
        this.name = name;
        this.methods = methods;
        if (typeof name !== 'string' || !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(name)) {
            throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `defineService(): ${JSON.stringify(name)} is not a valid interface name (dotted identifiers, e.g. "org.acme.Greeter").`);
        }
        const descriptors = new Map();
        for (const method of Object.keys(methods)) {
            if (!METHOD_NAME.test(method) || method.startsWith('$')) {
                throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `defineService("${name}"): method name ${JSON.stringify(method)} is not an identifier (names starting with "$" are reserved).`);
            }
            const spec = methods[method];
            descriptors.set(method, Object.freeze({ name: method, args: spec.args, returns: spec.returns ?? null, throws: spec.throws ?? [] }));
        }
        this.methodDescriptors = descriptors;
        Object.freeze(this);
    }
    /** The method names, in declaration order. */
    get methodNames() {
        return [...this.methodDescriptors.keys()];
    }
    /** One method's descriptor. */
    getMethod(name) {
        return this.methodDescriptors.get(name);
    }
}
/**
 * Defines a service interface: its name and methods with runtime types.
 *
 * @example
 * ```ts
 * export const Greeter = defineService('org.acme.Greeter', {
 *   sayHello: { args: [String], returns: String },
 * });
 * ```
 * @throws `ERR_SPI_INVALID_PARAMETER` for a malformed interface or method name.
 */
export function defineService(name, methods) {
    return new ServiceDefinition(name, methods);
}
//# sourceMappingURL=service-definition.js.map