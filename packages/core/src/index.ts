/**
 * `@weft/core`: Dubbo-style RPC for TypeScript — the end-user API.
 *
 * @remarks Extension authors also import `@weft/core/spi` (decorators, injection, manifest tools).
 * @packageDocumentation
 */
import 'reflect-metadata';

export { ApplicationModel } from './extension/application-model.js';
export { FrameworkModel, type FrameworkOptions } from './extension/framework-model.js';
export { DEFAULT_IMPORT_TIMEOUT, ScopeModel } from './extension/scope-model.js';
export { ExtensionLoader, type AddExtensionOptions, type ExtensionSource, type LoaderHost, type ReplaceExtensionOptions } from './extension/extension-loader.js';
export { ExtensionError, ExtensionErrorCode } from './extension/extension-error.js';
export { ConsoleLogger, Logger, type LogLevel } from './common/logger.js';
export { isSecretKey, maskedIdentity, maskSecrets, maskUrlText } from './common/mask-secrets.js';
export { URL, type ParameterEdits, type ParameterSource, type ParameterValue, type URLInit } from './rpc/url.js';
export { RpcError, RpcErrorCode, type RpcErrorOptions } from './rpc/rpc-error.js';
export { GrpcStatus, grpcStatusOf } from './rpc/grpc-status.js';
export { Invocation, type AttachmentValue, type InvocationInit } from './rpc/invocation.js';
export { Result } from './rpc/result.js';
export { PendingResult } from './rpc/pending-result.js';
export { whenSettled } from './rpc/when-settled.js';
export { Invoker } from './rpc/invoker.js';
export { Filter } from './filter/filter.js';
export { RpcStatus, RpcStatusRegistry } from './rpc/rpc-status.js';
export { RandomSource } from './rpc/random-source.js';
export { ApplicationEvents, type WeftEvent, type WeftEventListener } from './common/application-events.js';
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
  type ImplMethodOf,
  type ImplRequestOf,
  type ProxyMethodOf,
  type RequestOf,
  type RequestStream,
  type StreamOf,
} from './service/service-definition.js';
export { StreamPort, isStreamSource, type StreamKind } from './rpc/stream-port.js';
export { Protocol } from './protocol/protocol.js';
export { TlsKeys } from './transport/tls-keys.js';
export { callerIdentityOf, peerCertificateOf, type CallerIdentity, type PeerCertificate } from './rpc/caller-identity.js';
export { Exporter } from './protocol/exporter.js';
export { Cluster } from './cluster/cluster.js';
export { Directory } from './cluster/directory.js';
export { StaticDirectory } from './cluster/static-directory.js';
export { LoadBalance } from './cluster/load-balance.js';
export { Router, RouterFactory, type RouterContext } from './cluster/router.js';
export { RouterChain, type NamedRouter, type RouterStep } from './cluster/router-chain.js';
export { Serialization, type MethodCopier } from './serialization/serialization.js';
export { IdlSerialization, type IdlStatus } from './serialization/idl-serialization.js';
export { ObjectInput, ObjectOutput, ObjectSerialization } from './serialization/object-serialization.js';
export { JsonSerialization } from './serialization/json-serialization.js';
export { realize, describeType } from './service/realize.js';
export { MAX_RETURN_TYPES_TEXT, RETURN_TYPES_KEY, parseReturnTypes, returnTypesText, typeFromText, typeText } from './service/type-text.js';
export { errorFromData, errorToData, type ErrorData } from './service/error-data.js';
export { Realizer, MAX_REALIZE_DEPTH, type MethodRealizer, type RealizeFn } from './service/realizer.js';
export { mapOf, setOf, MapType, SetType, type FieldTypes } from './service/type-descriptors.js';
export { java, JavaType, JavaValue, javaClassOf, javaClassNameOf, javaDescriptorOf, type JavaKind, type JavaPrimitiveKind } from './service/java-types.js';
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
  type ApplicationParameterOptions,
} from './bootstrap/weft-application.js';
export type { ServiceStatus } from './bootstrap/service-status.js';
export {
  resolveServiceAddress,
  firstExternalIpv4,
  isWildcardAddress,
  DEFAULT_BIND_IP,
  type AddressEnvironment,
  type ServiceAddress,
  type ServiceAddressRequest,
} from './bootstrap/service-address.js';
export { ConfigValidator } from './config/config-validator.js';
export { ParameterRegistry, type ParameterRegistryOptions } from './config/parameter-registry.js';
export { CUSTOM_KEY_PREFIX, KNOWN_PARAMETERS, type KnownParameter } from './config/known-parameters.js';
export { RpcContext } from './rpc/rpc-context.js';
export { Registry, type NotifyListener } from './registry/registry.js';
export { RegistryFactory } from './registry/registry-factory.js';
export { AbstractRegistry } from './registry/abstract-registry.js';
export { RegistryDirectory, type RegistryDirectoryOptions } from './registry/registry-directory.js';
export { Configurator } from './registry/configurator.js';
export { isConfigurator, isMatch, isRouter, registryCategoryOf, RegistryCategory } from './registry/url-match.js';
export { RegistrySession, withDeadline, type RegistrySessionOptions } from './governance/registry-session.js';
export {
  buildOverrideRule,
  mergeOverrideRule,
  OVERRIDE_IDENTITY_KEYS,
  overrideIdentityOf,
  overrideNumericProblems,
  overrideSettings,
  readOverrideRules,
  readRegistrations,
  sameOverrideIdentity,
  validateOverrideRule,
  withoutOverrideKeys,
  type OverrideIdentity,
} from './governance/override-rules.js';
export { buildConditionRouteUrl, conditionRouteText, readConditionRoutes, routeRuleNode, routeRuleUrl, type ConditionRouteFlags, type RouteRuleKind } from './governance/route-rules.js';
