import { Invocation } from '../rpc/invocation.js';
import { RpcError } from '../rpc/rpc-error.js';
/**
 * Creates the consumer-side proxy of a service: one method per declared method, each returning a promise.
 *
 * @remarks
 * A call builds one `Invocation` and hands it to the invoker (the cluster, with its mock wrapper); the result
 * is unwrapped: its value returned, or the business error thrown as the implementation threw it. Framework
 * failures reject with `RpcError`. The methods are built once, at refer time.
 *
 * @example
 * ```ts
 * const greeter = createServiceProxy(Greeter, clusterInvoker);
 * await greeter.sayHello('ann');
 * await greeter.$call('sayHello', ['bo'], { timeout: 200, attachments: { traceId: 't1' } });
 * ```
 */
export function createServiceProxy(service, invoker, gate) {
    const unwrap = gate
        ? (result) => {
            gate.exit();
            return result.recreate();
        }
        : (result) => result.recreate();
    const fail = gate
        ? (error) => {
            gate.exit();
            throw error;
        }
        : undefined;
    const call = (invocation) => {
        if (gate !== undefined) {
            const refused = gate.enter();
            if (refused !== undefined)
                return Promise.reject(refused);
        }
        let pending;
        try {
            pending = invoker.invoke(invocation);
        }
        catch (error) {
            pending = Promise.reject(RpcError.from(error));
        }
        return pending.then(unwrap, fail);
    };
    const proxy = Object.create(null);
    for (const name of service.methodNames) {
        proxy[name] = (...args) => call(Invocation.of(name, args, service));
    }
    proxy['$call'] = (method, args, options = {}) => {
        if (!service.methodDescriptors.has(method)) {
            return Promise.reject(new TypeError(`${service.name} has no method "${method}" (methods: ${service.methodNames.join(', ')}).`));
        }
        const invocation = new Invocation({
            methodName: method,
            args,
            service,
            signal: options.signal,
            attachments: options.attachments,
            deadline: options.timeout !== undefined && options.timeout > 0 ? Date.now() + options.timeout : undefined,
        });
        return call(invocation);
    };
    proxy['$service'] = service;
    return Object.freeze(proxy);
}
//# sourceMappingURL=service-proxy.js.map