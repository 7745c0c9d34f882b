import type { AbstractClass, SpiMetadata } from './decorators.js';
import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { URL } from '../rpc/url.js';
import { maskSecrets } from '../common/mask-secrets.js';

/** The part of an invocation adaptive dispatch reads: the method name, for method-level keys. */
interface InvocationLike {
  getMethodName(): string;
}

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
 * Every other method throws `ERR_SPI_ADAPTIVE_FAILED` naming it: the concrete methods of the SPI class, and its
 * abstract methods too (they do not exist at run time, so any other method name is refused by a proxy at the
 * end of the prototype chain; names probed on any object, such as `then` or `toJSON`, read as absent).
 *
 * Unlike Dubbo's generated code, keys chain the same way with and without an invocation (Dubbo lets only the
 * first key count when an invocation is passed, and falls back to the literal name `"null"`).
 * No code is generated from strings: the dispatchers are ordinary closures built once.
 * @internal
 */
export function createAdaptiveExtension<T extends object>(
  spi: AbstractClass<T>,
  meta: SpiMetadata,
  getExtension: (name: string) => T,
): T {
  if (meta.adaptiveMethods.size === 0) {
    throw new ExtensionError(
      ExtensionErrorCode.ADAPTIVE_FAILED,
      `Extension point ${meta.id} has no adaptive method, so it has no adaptive extension. Declare adaptive methods ` +
        `with @SPI({ id: '${meta.id}', adaptive: { method: ['url-key'] } }), or register a class marked @Adaptive().`,
    );
  }
  const notAdaptive = (method: string) => () => {
    throw new ExtensionError(
      ExtensionErrorCode.ADAPTIVE_FAILED,
      `The method ${method}() of extension point ${meta.id} is not adaptive: get a named extension to call it ` +
        `(loader.getExtension(name).${method}()), or list it in @SPI({ adaptive }).`,
    );
  };
  // Abstract methods leave no trace at run time, so the adaptive object's prototype is a proxy of the SPI
  // prototype that answers any other method name with a refusal. Own properties (the dispatchers) are found
  // before the proxy is consulted: dispatch never pays for it.
  const fallback = new Proxy(spi.prototype as object, {
    get(target, property, receiver) {
      if (typeof property !== 'string' || property in target || NOT_METHODS.has(property) || /^[_$@]/.test(property)) {
        return Reflect.get(target, property, receiver) as unknown;
      }
      return notAdaptive(property);
    },
    // `adaptive instanceof Spi` holds: the proxy reports the SPI prototype as its own prototype.
    getPrototypeOf: () => spi.prototype as object,
  });
  const adaptive = Object.create(fallback) as Record<string, unknown>;
  for (const method of prototypeMethods(spi)) {
    if (!meta.adaptiveMethods.has(method)) adaptive[method] = notAdaptive(method);
  }
  for (const [method, keys] of meta.adaptiveMethods) {
    adaptive[method] = createDispatcher(meta, method, keys, getExtension);
  }
  Object.defineProperty(adaptive, 'toString', { value: () => `[adaptive ${meta.id}]`, enumerable: false });
  return adaptive as T;
}

/**
 * Property names that are probed on arbitrary objects and must read as absent, not as a refusing method:
 * thenables (`await`), JSON, test matchers and inspectors.
 */
const NOT_METHODS: ReadonlySet<string> = new Set(['then', 'catch', 'finally', 'toJSON', 'asymmetricMatch', 'nodeType', 'inspect', 'length']);

function createDispatcher<T>(
  meta: SpiMetadata,
  method: string,
  keys: readonly string[],
  getExtension: (name: string) => T,
): (...args: unknown[]) => unknown {
  const defaultName = meta.defaultName;
  return function adaptiveDispatch(...args: unknown[]): unknown {
    // As Dubbo's generated code: a URL argument wins over any argument carrying one (getUrl() or url).
    let url = args.find((arg): arg is URL => arg instanceof URL);
    let invocation: InvocationLike | undefined;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as Record<string, unknown> | null | undefined;
      if (arg instanceof URL || arg === null || typeof arg !== 'object') continue;
      if (invocation === undefined && typeof arg['getMethodName'] === 'function') {
        invocation = arg as unknown as InvocationLike;
      } else if (url === undefined) {
        url = urlOf(arg, i, meta, method);
      }
    }
    if (url === undefined) {
      throw new ExtensionError(
        ExtensionErrorCode.ADAPTIVE_FAILED,
        `Adaptive ${meta.id}.${method}() found no URL among its ${args.length} argument(s): pass a URL, or an object ` +
          `with getUrl() or a url property.`,
      );
    }
    const methodName = invocation?.getMethodName();
    let name: string | undefined;
    for (const key of keys) {
      const value =
        key === 'protocol'
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
      throw new ExtensionError(
        ExtensionErrorCode.NO_ADAPTIVE_NAME,
        `Cannot choose an extension of ${meta.id} for ${method}(): none of the URL keys [${keys.join(', ')}] is set in ` +
          `${maskSecrets(url)} and ${meta.id} has no default. Set ${keys[0] === 'protocol' ? 'the URL protocol' : `"${keys[0]}"`} to an extension name.`,
      );
    }
    const extension = getExtension(name) as Record<string, (...a: unknown[]) => unknown>;
    return (extension[method] as (...a: unknown[]) => unknown).apply(extension, args);
  };
}

function urlOf(arg: Record<string, unknown>, index: number, meta: SpiMetadata, method: string): URL | undefined {
  if (typeof arg['getUrl'] === 'function') {
    const url = (arg['getUrl'] as () => unknown).call(arg);
    if (!(url instanceof URL)) {
      throw new ExtensionError(
        ExtensionErrorCode.ADAPTIVE_FAILED,
        `Adaptive ${meta.id}.${method}(): argument #${index} getUrl() returned ${url === undefined ? 'undefined' : 'a non-URL value'}.`,
      );
    }
    return url;
  }
  const url = arg['url'];
  return url instanceof URL ? url : undefined;
}

function prototypeMethods(spi: Function): string[] {
  const names = new Set<string>();
  for (let proto = spi.prototype as object | null; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === 'constructor') continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, key);
      if (descriptor !== undefined && typeof descriptor.value === 'function') names.add(key);
    }
  }
  return [...names];
}
