/**
 * `@weft/mock`: service degradation — force and fail mock, mock expressions, `mock://` providers.
 * @packageDocumentation
 */
export { MockClusterWrapper } from './mock-cluster-wrapper.js';
export { MockClusterInvoker } from './mock-cluster-invoker.js';
export { MockInvoker } from './mock-invoker.js';
export { MockProtocol } from './mock-protocol.js';
export { MockConfigValidator } from './mock-config-validator.js';
export { MockRegistry, type MockErrorClass } from './mock-registry.js';
export { mockMode, normalizeMock, parseMockAction, parseMockValue, type MockAction, type MockMode } from './mock-expression.js';
export { emptyValue, MockLiteral } from './mock-literal.js';
export { MockExpressionCache } from './mock-expression-cache.js';
export { MockLimits } from './mock-limits.js';
export { MockDefaults, MockKeys } from './mock-keys.js';
export { FailMockWarnings } from './fail-mock-warnings.js';
export { parseLenientJson } from './lenient-json.js';
