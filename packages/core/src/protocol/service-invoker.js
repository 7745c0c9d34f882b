import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { Invoker } from '../rpc/invoker.js';
import { Result } from '../rpc/result.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
function toResult(value) {
    return Result.of(value);
}
function toException(error) {
    return Result.ofException(error);
}
/**
 * The provider-side invoker that calls a service implementation.
 *
 * @remarks
 * Whatever the implementation throws or rejects with is a **business error**: it becomes a `Result` carrying
 * it (never a rejection), so filters see it in `onResponse` and consumers never retry or mock it. A method the
 * service does not declare rejects with `RpcError` `method-not-found`. Methods are looked up once, at export.
 *
 * @example
 * ```ts
 * const invoker = new ServiceInvoker(Greeter, { sayHello: (n: string) => `hi ${n}` }, providerUrl);
 * ```
 * @throws `ERR_SPI_INVALID_PARAMETER` when the implementation lacks a declared method.
 */
export class ServiceInvoker extends Invoker {
    service;
    implementation;
    url;
    methods = new Map();
    constructor(service, implementation, url) {
        super();
        this.service = service;
        this.implementation = implementation;
        this.url = url;
        const missing = [];
        for (const name of service.methodNames) {
            const fn = implementation[name];
            if (typeof fn === 'function')
                this.methods.set(name, fn);
            else
                missing.push(name);
        }
        if (missing.length > 0) {
            throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `The implementation exported for ${service.name} lacks method(s) ${missing.join(', ')} declared by the service definition.`);
        }
    }
    getUrl() {
        return this.url;
    }
    invoke(invocation) {
        const method = this.methods.get(invocation.methodName);
        if (method === undefined) {
            return Promise.reject(new RpcError(RpcErrorCode.METHOD_NOT_FOUND, `Service ${this.service.name} has no method "${invocation.methodName}" (methods: ${this.service.methodNames.join(', ')}).`));
        }
        let out;
        try {
            out = method.apply(this.implementation, invocation.args);
        }
        catch (error) {
            return Promise.resolve(Result.ofException(error));
        }
        if (out instanceof Promise)
            return out.then(toResult, toException);
        return Promise.resolve(Result.of(out));
    }
}
//# sourceMappingURL=service-invoker.js.map