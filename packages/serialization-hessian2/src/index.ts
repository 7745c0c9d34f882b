/**
 * `@weft/serialization-hessian2`: Hessian 2.0 as Dubbo's hessian-lite reads and writes it, the `hessian2` body codec
 * of `dubbo://` and of the Triple wrapper. Java types are declared on Weft types with core's `java` helpers.
 *
 * @packageDocumentation
 */
export { Hessian2Serialization } from './hessian2-serialization.js';
export { Hessian2Output } from './hessian2-output.js';
export { Hessian2Input } from './hessian2-input.js';
export { JavaThrowable, type JavaStackFrame } from './java/java-throwable.js';
export { JAVA_CLASS, MAX_READ_DEPTH } from './decoder/hessian-decoder.js';
export { MAX_WRITE_DEPTH } from './encoder/hessian-encoder.js';
