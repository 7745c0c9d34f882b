import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { URL } from '../rpc/url.js';
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
export function createAdaptiveExtension(spi, meta, getExtension) {
    if (meta.adaptiveMethods.size === 0) {
        throw new ExtensionError(ExtensionErrorCode.ADAPTIVE_FAILED, `Extension point ${meta.id} has no adaptive method, so it has no adaptive extension. Declare adaptive methods ` +
            `with @SPI({ id: '${meta.id}', adaptive: { method: ['url-key'] } }), or register a class marked @Adaptive().`);
    }
    const adaptive = Object.create(spi.prototype);
    for (const method of prototypeMethods(spi)) {
        if (meta.adaptiveMethods.has(method))
            continue;
        adaptive[method] = () => {
            throw new ExtensionError(ExtensionErrorCode.ADAPTIVE_FAILED, `The method ${method} of extension point ${meta.id} is not adaptive: get a named extension to call it, ` +
                `or list it in @SPI({ adaptive }).`);
        };
    }
    for (const [method, keys] of meta.adaptiveMethods) {
        adaptive[method] = createDispatcher(meta, method, keys, getExtension);
    }
    Object.defineProperty(adaptive, 'toString', { value: () => `[adaptive ${meta.id}]`, enumerable: false });
    return adaptive;
}
function createDispatcher(meta, method, keys, getExtension) {
    const defaultName = meta.defaultName;
    return function adaptiveDispatch(...args) {
        // As Dubbo's generated code: a URL argument wins over any argument carrying one (getUrl() or url).
        let url = args.find((arg) => arg instanceof URL);
        let invocation;
        for (let i = 0; i < args.length; i++) {
            const arg = args[i];
            if (arg instanceof URL || arg === null || typeof arg !== 'object')
                continue;
            if (invocation === undefined && typeof arg['getMethodName'] === 'function') {
                invocation = arg;
            }
            else if (url === undefined) {
                url = urlOf(arg, i, meta, method);
            }
        }
        if (url === undefined) {
            throw new ExtensionError(ExtensionErrorCode.ADAPTIVE_FAILED, `Adaptive ${meta.id}.${method}() found no URL among its ${args.length} argument(s): pass a URL, or an object ` +
                `with getUrl() or a url property.`);
        }
        const methodName = invocation?.getMethodName();
        let name;
        for (const key of keys) {
            const value = key === 'protocol'
                ? url.protocol
                : methodName !== undefined
                    ? url.getMethodParameter(methodName, key)
                    : url.getParameter(key);
            if (value !== undefined && value !== '') {
                name = value;
                break;
            }
        }
        name ??= defaultName;
        if (name === undefined) {
            throw new ExtensionError(ExtensionErrorCode.NO_ADAPTIVE_NAME, `Cannot choose an extension of ${meta.id} for ${method}(): none of the URL keys [${keys.join(', ')}] is set in ` +
                `${url.toString()} and ${meta.id} has no default. Set ${keys[0] === 'protocol' ? 'the URL protocol' : `"${keys[0]}"`} to an extension name.`);
        }
        const extension = getExtension(name);
        return extension[method].apply(extension, args);
    };
}
function urlOf(arg, index, meta, method) {
    if (typeof arg['getUrl'] === 'function') {
        const url = arg['getUrl'].call(arg);
        if (!(url instanceof URL)) {
            throw new ExtensionError(ExtensionErrorCode.ADAPTIVE_FAILED, `Adaptive ${meta.id}.${method}(): argument #${index} getUrl() returned ${url === undefined ? 'undefined' : 'a non-URL value'}.`);
        }
        return url;
    }
    const url = arg['url'];
    return url instanceof URL ? url : undefined;
}
function prototypeMethods(spi) {
    const names = new Set();
    for (let proto = spi.prototype; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
        for (const key of Object.getOwnPropertyNames(proto)) {
            if (key === 'constructor')
                continue;
            const descriptor = Object.getOwnPropertyDescriptor(proto, key);
            if (descriptor !== undefined && typeof descriptor.value === 'function')
                names.add(key);
        }
    }
    return [...names];
}
//# sourceMappingURL=adaptive.js.map