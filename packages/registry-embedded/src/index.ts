/**
 * `@weft/registry-embedded`: the registry that needs no server.
 * @packageDocumentation
 */
export { EmbeddedRegistry } from './embedded-registry.js';
export { EmbeddedRegistryFactory } from './embedded-registry-factory.js';
