/**
 * `@weft/core`: Dubbo-style RPC for TypeScript — the end-user API.
 *
 * @remarks Extension authors also import `@weft/core/spi` (decorators, injection, manifest tools).
 * @packageDocumentation
 */
import 'reflect-metadata';

export { ApplicationModel } from './extension/application-model.js';
export { FrameworkModel, type FrameworkOptions } from './extension/framework-model.js';
export { ScopeModel } from './extension/scope-model.js';
export { ExtensionLoader, type AddExtensionOptions, type ExtensionSource, type LoaderHost } from './extension/extension-loader.js';
export { ExtensionError, ExtensionErrorCode } from './extension/extension-error.js';
export { ConsoleLogger, Logger } from './common/logger.js';
export { URL, type ParameterEdits, type ParameterSource, type ParameterValue, type URLInit } from './rpc/url.js';
export { RpcError, RpcErrorCode, type RpcErrorOptions } from './rpc/rpc-error.js';
export { Invocation, type AttachmentValue, type InvocationInit } from './rpc/invocation.js';
export { Result } from './rpc/result.js';
export { whenSettled } from './rpc/when-settled.js';
export { Invoker } from './rpc/invoker.js';
export { Filter } from './filter/filter.js';
export { RpcStatus, RpcStatusRegistry } from './rpc/rpc-status.js';
export { RandomSource } from './rpc/random-source.js';
export {
  defineService,
  ServiceDefinition,
  type ArgsOf,
  type IdlMethod,
  type ImplArgsOf,
  type ImplReturnOf,
  type MethodDescriptor,
  type MethodSpec,
  type ReturnOf,
  type ServiceImplementation,
  type ServiceProxy,
  type TypeDescriptor,
  type TypeOf,
  type TypesOf,
} from './service/service-definition.js';
export { Protocol } from './protocol/protocol.js';
export { Exporter } from './protocol/exporter.js';
export { Cluster } from './cluster/cluster.js';
export { Directory } from './cluster/directory.js';
export { StaticDirectory } from './cluster/static-directory.js';
export { LoadBalance } from './cluster/load-balance.js';
export { Serialization } from './serialization/serialization.js';
export { IdlSerialization, type IdlStatus } from './serialization/idl-serialization.js';
export { JsonSerialization } from './serialization/json-serialization.js';
export { realize, describeType, errorFromData, errorToData, type ErrorData } from './service/realize.js';
export { createServiceProxy, type CallableProxy, type CallGate, type CallOptions } from './service/service-proxy.js';
export { AbstractInvoker, DEFAULT_TIMEOUT } from './protocol/abstract-invoker.js';
export { ServiceInvoker } from './protocol/service-invoker.js';
export { InjvmProtocol } from './protocol/injvm-protocol.js';
export { ProtocolFilterWrapper } from './protocol/protocol-filter-wrapper.js';
export { buildFilterChain } from './filter/filter-chain.js';
export {
  WeftApplication,
  type ExportedService,
  type ExportOptions,
  type ReferOptions,
  type WeftApplicationOptions,
} from './bootstrap/weft-application.js';
export { ConfigValidator } from './config/config-validator.js';
export { RpcContext } from './rpc/rpc-context.js';
export { Registry, type NotifyListener } from './registry/registry.js';
export { RegistryFactory } from './registry/registry-factory.js';
export { AbstractRegistry } from './registry/abstract-registry.js';
export { RegistryDirectory, type RegistryDirectoryOptions } from './registry/registry-directory.js';
export { Configurator } from './registry/configurator.js';
export { isConfigurator, isMatch, isRouter, registryCategoryOf, RegistryCategory } from './registry/url-match.js';
