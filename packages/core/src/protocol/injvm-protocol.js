var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
import { Invocation } from '../rpc/invocation.js';
import { Result } from '../rpc/result.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { InjectLoader } from '../extension/injector.js';
import { Serialization } from '../serialization/serialization.js';
import { errorFromData, errorToData, realize } from '../service/realize.js';
import { AbstractInvoker } from './abstract-invoker.js';
import { Exporter } from './exporter.js';
import { Protocol } from './protocol.js';
class InjvmExporter extends Exporter {
    invoker;
    key;
    registry;
    unexported = false;
    constructor(invoker, key, registry) {
        super();
        this.invoker = invoker;
        this.key = key;
        this.registry = registry;
    }
    getInvoker() {
        return this.invoker;
    }
    async unexport() {
        if (this.unexported)
            return;
        this.unexported = true;
        if (this.registry.get(this.key) === this)
            this.registry.delete(this.key);
        await this.invoker.destroy();
    }
}
class SerializingCopier {
    serialization;
    constructor(serialization) {
        this.serialization = serialization;
    }
    args(invocation) {
        const copied = this.serialization.copy(invocation.args);
        const types = invocation.method?.args;
        if (types === undefined)
            return copied;
        return copied.map((value, i) => realize(value, types[i], `argument ${i} of ${invocation.methodName}`));
    }
    result(result, invocation) {
        const copy = result.hasException()
            ? Result.ofException(errorFromData(this.serialization.copy(errorToData(result.exception)), invocation.method?.throws))
            : Result.of(realize(this.serialization.copy(result.value), invocation.method?.returns, `result of ${invocation.methodName}`));
        for (const [key, value] of result.getAttachments())
            copy.setAttachment(key, value);
        return copy;
    }
}
class InjvmInvoker extends AbstractInvoker {
    service;
    exporters;
    copier;
    key;
    constructor(service, url, exporters, copier) {
        super(url);
        this.service = service;
        this.exporters = exporters;
        this.copier = copier;
        this.key = url.getServiceKey() ?? service.name;
    }
    isAvailable() {
        return super.isAvailable() && this.exporters.has(this.key);
    }
    doInvoke(invocation) {
        const exporter = this.exporters.get(this.key);
        if (exporter === undefined) {
            return Promise.reject(new RpcError(RpcErrorCode.NO_INVOKER, `No injvm provider of ${this.key} in this application (exported: ${[...this.exporters.keys()].join(', ') || 'none'}).`));
        }
        const copier = this.copier;
        const provided = Invocation.of(invocation.methodName, copier === undefined ? invocation.args : copier.args(invocation), invocation.service ?? this.service);
        provided.deadline = invocation.deadline;
        provided.signal = invocation.signal;
        const attachments = invocation.getAttachments();
        if (attachments.size > 0) {
            for (const [key, value] of attachments)
                provided.setAttachment(key, value);
        }
        const pending = exporter.getInvoker().invoke(provided);
        return copier === undefined ? pending : pending.then((result) => copier.result(result, provided));
    }
}
/**
 * The in-process protocol (`injvm`): exports and refers services within one application.
 *
 * @remarks
 * Extension `injvm` of `weft.rpc.Protocol` (the default protocol). Calls behave as remote ones do: arguments,
 * results and business errors are **copied** through the codec named by the URL key `serialization` (default
 * `json`) and realised against the method's declared types, so a service behaves the same in-process and over
 * the network; timeouts, deadlines and cancellation apply as for any consumer invoker. `copy=false` on the
 * reference (or export) URL opts out: arguments and results are passed by reference (zero-copy). Exporters are
 * per application; exporting the same service key twice is an error. A referred invoker is available while its
 * service is exported.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl);                      // injvm by default
 * const greeter = await app.refer(Greeter, { parameters: { copy: 'false' } });
 * ```
 */
let InjvmProtocol = class InjvmProtocol extends Protocol {
    serializations;
    exporters = new Map();
    constructor(serializations) {
        super();
        this.serializations = serializations;
    }
    getDefaultPort() {
        return 0;
    }
    async export(invoker) {
        const url = invoker.getUrl();
        const key = url.getServiceKey();
        if (key === undefined) {
            throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `Cannot export ${url.toString()} over injvm: it names no service.`);
        }
        if (this.exporters.has(key)) {
            throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `Service ${key} is already exported over injvm in this application; export it once, or give it another group or version.`);
        }
        const exporter = new InjvmExporter(invoker, key, this.exporters);
        this.exporters.set(key, exporter);
        return exporter;
    }
    async refer(service, url) {
        const copy = url.getParameter('copy', true);
        const copier = copy ? new SerializingCopier(this.serializations.getExtension(url.getParameter('serialization', 'json'))) : undefined;
        return new InjvmInvoker(service, url, this.exporters, copier);
    }
    async destroy() {
        await Promise.all([...this.exporters.values()].map((e) => e.unexport()));
    }
};
InjvmProtocol = __decorate([
    __param(0, InjectLoader(Serialization)),
    __metadata("design:paramtypes", [Function])
], InjvmProtocol);
export { InjvmProtocol };
//# sourceMappingURL=injvm-protocol.js.map