import type { Invocation } from '../rpc/invocation.js';
import { Invoker } from '../rpc/invoker.js';
import { Result } from '../rpc/result.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
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
export declare class ServiceInvoker extends Invoker {
    readonly service: ServiceDefinition;
    private readonly implementation;
    private readonly url;
    private readonly methods;
    constructor(service: ServiceDefinition, implementation: object, url: URL);
    getUrl(): URL;
    invoke(invocation: Invocation): Promise<Result>;
}
//# sourceMappingURL=service-invoker.d.ts.map