/**
 * `@weft/core`: Dubbo-style RPC for TypeScript — the end-user API.
 *
 * @remarks Extension authors also import `@weft/core/spi` (decorators, injection, manifest tools).
 * @packageDocumentation
 */
import 'reflect-metadata';
export { ApplicationModel } from './extension/application-model.js';
export { FrameworkModel } from './extension/framework-model.js';
export { ScopeModel } from './extension/scope-model.js';
export { ExtensionLoader } from './extension/extension-loader.js';
export { ExtensionError, ExtensionErrorCode } from './extension/extension-error.js';
export { ConsoleLogger, Logger } from './common/logger.js';
export { URL } from './rpc/url.js';
export { RpcError, RpcErrorCode } from './rpc/rpc-error.js';
export { Invocation } from './rpc/invocation.js';
export { Result } from './rpc/result.js';
export { Invoker } from './rpc/invoker.js';
export { Filter } from './filter/filter.js';
export { RpcStatus, RpcStatusRegistry } from './rpc/rpc-status.js';
export { RandomSource } from './rpc/random-source.js';
export { defineService, ServiceDefinition, } from './service/service-definition.js';
export { Protocol } from './protocol/protocol.js';
export { Exporter } from './protocol/exporter.js';
export { Cluster } from './cluster/cluster.js';
export { Directory } from './cluster/directory.js';
export { StaticDirectory } from './cluster/static-directory.js';
export { LoadBalance } from './cluster/load-balance.js';
export { Serialization } from './serialization/serialization.js';
export { JsonSerialization } from './serialization/json-serialization.js';
export { realize, describeType, errorFromData, errorToData } from './service/realize.js';
export { createServiceProxy } from './service/service-proxy.js';
export { AbstractInvoker, DEFAULT_TIMEOUT } from './protocol/abstract-invoker.js';
export { ServiceInvoker } from './protocol/service-invoker.js';
export { InjvmProtocol } from './protocol/injvm-protocol.js';
export { ProtocolFilterWrapper } from './protocol/protocol-filter-wrapper.js';
export { buildFilterChain } from './filter/filter-chain.js';
export { WeftApplication, } from './bootstrap/weft-application.js';
export { ConfigValidator } from './config/config-validator.js';
//# sourceMappingURL=index.js.map