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
export { emptyValue, mockMode, normalizeMock, parseMockAction, parseMockValue, type MockAction, type MockMode } from './mock-expression.js';
export { parseLenientJson } from './lenient-json.js';
