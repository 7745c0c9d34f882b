/**
 * `@weft/core/spi`: the extension-author API — declaring extension points, activation, wrappers, adaptive
 * dispatch and constructor injection, and reading manifests.
 *
 * @packageDocumentation
 */
import 'reflect-metadata';

export {
  Activate,
  Adaptive,
  getSpiMetadata,
  SPI,
  Wrapper,
  type AbstractClass,
  type ActivateCondition,
  type ActivateMetadata,
  type ActivateOptions,
  type Class,
  type ExtensionScope,
  type SpiMetadata,
  type SpiOptions,
  type WrapperMetadata,
  type WrapperOptions,
} from '../extension/decorators.js';
export {
  Inject,
  InjectAdaptive,
  InjectExtension,
  InjectLoader,
  InjectWrapped,
  type Dependency,
  type ParameterDecorator,
  type ServiceToken,
} from '../extension/injector.js';
export {
  discoverManifests,
  type DiscoveredPackage,
  type DiscoveryProblem,
  type ManifestIndex,
  type ManifestRecord,
} from '../extension/discovery.js';
export { parseManifest, type ManifestEntry, type ManifestEntryKind, type ManifestParseResult } from '../extension/manifest.js';
export { explainActivation, isConfigNotEmpty, selectActivated, type ActivateCandidate, type ActivateUrl, type ActivationReason, type ActivationVerdict } from '../extension/activate.js';
export { EXTENSION_NAME_PATTERN, EXTENSION_POINT_ID_PATTERN, RESERVED_NAMES, splitCommaList } from '../extension/names.js';
export { ExtensionLoader, type AddExtensionOptions, type ExtensionSource } from '../extension/extension-loader.js';
export { ApplicationModel } from '../extension/application-model.js';
export { FrameworkModel } from '../extension/framework-model.js';
export { ScopeModel } from '../extension/scope-model.js';
export { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
export { Logger } from '../common/logger.js';
export { URL } from '../rpc/url.js';
export { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
export { Invocation, type AttachmentValue } from '../rpc/invocation.js';
export { Result } from '../rpc/result.js';
export { Invoker } from '../rpc/invoker.js';
export { Filter } from '../filter/filter.js';
export { RpcStatus, RpcStatusRegistry } from '../rpc/rpc-status.js';
export { RandomSource } from '../rpc/random-source.js';
export { ServiceDefinition, type IdlMethod, type MethodDescriptor, type TypeDescriptor } from '../service/service-definition.js';
export { Protocol } from '../protocol/protocol.js';
export { Exporter } from '../protocol/exporter.js';
export { Cluster } from '../cluster/cluster.js';
export { Directory } from '../cluster/directory.js';
export { StaticDirectory } from '../cluster/static-directory.js';
export { LoadBalance } from '../cluster/load-balance.js';
export { Serialization } from '../serialization/serialization.js';
export { IdlSerialization, type IdlStatus } from '../serialization/idl-serialization.js';
export { realize, describeType, errorFromData, errorToData, type ErrorData } from '../service/realize.js';
export { AbstractInvoker, DEFAULT_TIMEOUT } from '../protocol/abstract-invoker.js';
export { ServiceInvoker } from '../protocol/service-invoker.js';
export { buildFilterChain } from '../filter/filter-chain.js';
export { createServiceProxy, type CallGate, type CallOptions } from '../service/service-proxy.js';
export { ConfigValidator } from '../config/config-validator.js';
export { safeLog } from '../common/logger.js';
export { DeadlineWheel, type DeadlineEntry } from '../protocol/deadline-wheel.js';
export { RpcContext } from '../rpc/rpc-context.js';
export { Registry, type NotifyListener } from '../registry/registry.js';
export { RegistryFactory } from '../registry/registry-factory.js';
export { AbstractRegistry } from '../registry/abstract-registry.js';
export { RegistryDirectory } from '../registry/registry-directory.js';
export { Configurator } from '../registry/configurator.js';
export { isConfigurator, isMatch, isRouter, registryCategoryOf, RegistryCategory } from '../registry/url-match.js';
