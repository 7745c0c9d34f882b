import type { AbstractClass, SpiMetadata } from './decorators.js';
/**
 * Builds the generated adaptive extension of an extension point.
 *
 * @remarks
 * The returned object is an instance of the SPI class. Each adaptive method, per call:
 * 1. finds the URL among the arguments — the first `URL` argument, else the first object with `getUrl()` or a
 *    `url` property — and an invocation (an object with `getMethodName()`) if any;
 * 2. reads the extension name from the method's keys in order: key `protocol` means the URL's protocol;
 *    other keys are URL parameters, read at method level (`<method>.<key>` first) when an invocation is
 *    present; the first non-empty value wins, else the SPI default (neither: `ERR_SPI_NO_ADAPTIVE_NAME`);
 * 3. delegates to `getExtension(name)` of the same scope with the original arguments.
 *
 * The other methods of the SPI class throw `ERR_SPI_ADAPTIVE_FAILED`. That covers the methods found on its
 * prototype chain: abstract members do not exist at run time, so calling one of them on the adaptive
 * extension is a plain `TypeError`.
 *
 * Unlike Dubbo's generated code, keys chain the same way with and without an invocation (Dubbo lets only the
 * first key count when an invocation is passed, and falls back to the literal name `"null"`).
 * No code is generated from strings: the dispatchers are ordinary closures built once.
 * @internal
 */
export declare function createAdaptiveExtension<T extends object>(spi: AbstractClass<T>, meta: SpiMetadata, getExtension: (name: string) => T): T;
//# sourceMappingURL=adaptive.d.ts.map