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
export { parseManifest, type DeclaredKey, type ManifestEntry, type ManifestEntryKind, type ManifestParseResult } from '../extension/manifest.js';
export { explainActivation, isConfigNotEmpty, selectActivated, type ActivateCandidate, type ActivateUrl, type ActivationReason, type ActivationVerdict } from '../extension/activate.js';
export { EXTENSION_NAME_PATTERN, EXTENSION_POINT_ID_PATTERN, RESERVED_NAMES, splitCommaList } from '../extension/names.js';
export { ExtensionLoader, type AddExtensionOptions, type ExtensionSource, type ReplaceExtensionOptions } from '../extension/extension-loader.js';
export { ApplicationModel } from '../extension/application-model.js';
export { FrameworkModel } from '../extension/framework-model.js';
export { ScopeModel } from '../extension/scope-model.js';
export { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
export { KNOWN_EXTENSION_POINTS, KNOWN_EXTENSIONS, type KnownExtension, type KnownExtensionPoint } from '../extension/known-extensions.js';
export { Logger } from '../common/logger.js';
export { URL } from '../rpc/url.js';
export { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
export { GrpcStatus, grpcStatusOf } from '../rpc/grpc-status.js';
export { Invocation, type AttachmentValue } from '../rpc/invocation.js';
export { Result } from '../rpc/result.js';
export { PendingResult } from '../rpc/pending-result.js';
export { Invoker } from '../rpc/invoker.js';
export { Filter } from '../filter/filter.js';
export { RpcStatus, RpcStatusRegistry } from '../rpc/rpc-status.js';
export { RandomSource } from '../rpc/random-source.js';
export { ApplicationEvents, type WeftEvent, type WeftEventListener } from '../common/application-events.js';
export { StreamPort, isStreamSource, type StreamKind } from '../rpc/stream-port.js';
export { ServiceDefinition, type IdlMethod, type MethodDescriptor, type TypeDescriptor } from '../service/service-definition.js';
export { Protocol } from '../protocol/protocol.js';
export { TLS_FILE_KEYS, TlsKeys, tlsRequested } from '../transport/tls-keys.js';
export { TlsMaterial, peerCertificateOfSocket } from '../transport/tls-material.js';
export {
  callerIdentityOf,
  describeCaller,
  peerCertificateOf,
  setCallerIdentity,
  setPeerCertificate,
  type CallerIdentity,
  type PeerCertificate,
} from '../rpc/caller-identity.js';
export { Exporter } from '../protocol/exporter.js';
export { Cluster } from '../cluster/cluster.js';
export { Directory } from '../cluster/directory.js';
export { StaticDirectory } from '../cluster/static-directory.js';
export { LoadBalance } from '../cluster/load-balance.js';
export { Serialization, type MethodCopier } from '../serialization/serialization.js';
export { IdlSerialization, type IdlStatus } from '../serialization/idl-serialization.js';
export { ObjectInput, ObjectOutput, ObjectSerialization } from '../serialization/object-serialization.js';
export { realize, describeType } from '../service/realize.js';
export { asDeclaredError, errorFromData, errorToData, RPC_ERROR_MARK, type ErrorData } from '../service/error-data.js';
export { Realizer, MAX_REALIZE_DEPTH, type MethodRealizer, type RealizeFn } from '../service/realizer.js';
export { mapOf, setOf, MapType, SetType, type FieldTypes } from '../service/type-descriptors.js';
export { java, JavaType, JavaValue, javaClassOf, javaClassNameOf, javaDescriptorOf, type JavaKind, type JavaPrimitiveKind } from '../service/java-types.js';
export { AbstractInvoker, DEFAULT_TIMEOUT } from '../protocol/abstract-invoker.js';
export { ServiceInvoker } from '../protocol/service-invoker.js';
export { buildFilterChain } from '../filter/filter-chain.js';
export { createServiceProxy, type CallGate, type CallOptions } from '../service/service-proxy.js';
export { ConfigValidator } from '../config/config-validator.js';
export { ParameterRegistry, type ParameterRegistryOptions } from '../config/parameter-registry.js';
export { boundedEditDistance } from '../config/edit-distance.js';
export { CUSTOM_KEY_PREFIX, KNOWN_PARAMETERS, type KnownParameter } from '../config/known-parameters.js';
export { safeLog } from '../common/logger.js';
export { isSecretKey, maskedIdentity, maskSecrets, maskUrlText } from '../common/mask-secrets.js';
export { DeadlineWheel, type DeadlineEntry, type WheelEntry } from '../protocol/deadline-wheel.js';
export { RpcContext } from '../rpc/rpc-context.js';
export { Registry, type NotifyListener } from '../registry/registry.js';
export { RegistryFactory } from '../registry/registry-factory.js';
export { AbstractRegistry } from '../registry/abstract-registry.js';
export { RegistryDirectory } from '../registry/registry-directory.js';
export { Configurator } from '../registry/configurator.js';
export { isConfigurator, isMatch, isRouter, registryCategoryOf, RegistryCategory } from '../registry/url-match.js';
export { TimeSlicer } from '../registry/time-slicer.js';
export { RuleLimitDefaults, RuleLimitKeys, ruleLimitsOf, type RuleLimits } from '../registry/rule-limits.js';
export { OverrideIndex, type ConfiguredUrl, type OverridePlan } from '../registry/override-index.js';
export { configureProviders, type ConfiguredProvider } from '../registry/configured-providers.js';
export { parseConfiguratorRules } from '../registry/configurator-rules.js';
export {
  configCentreRouteUrl,
  configuratorForSubscriber,
  providerApplicationDocuments,
  subscriptionDocuments,
  type ConfigCentreDocument,
} from '../registry/config-centre-rules.js';
