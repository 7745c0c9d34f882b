/**
 * A runtime type descriptor: `String`, `Number`, `Boolean`, `Object`, `Date`, `Map`, `Set`, a class, `[T]` for
 * an array of `T`, or `null` for "no value" (void).
 */
export type TypeDescriptor = StringConstructor | NumberConstructor | BooleanConstructor | ObjectConstructor | DateConstructor | MapConstructor | SetConstructor | ArrayConstructor | (new (...args: any[]) => unknown) | readonly [TypeDescriptor] | null;
/** The TypeScript type a {@link TypeDescriptor} stands for. */
export type TypeOf<D> = D extends null ? void : D extends StringConstructor ? string : D extends NumberConstructor ? number : D extends BooleanConstructor ? boolean : D extends DateConstructor ? Date : D extends MapConstructor ? Map<unknown, unknown> : D extends SetConstructor ? Set<unknown> : D extends ArrayConstructor ? unknown[] : D extends ObjectConstructor ? Record<string, unknown> : D extends readonly [infer E] ? TypeOf<E>[] : D extends new (...args: never[]) => infer I ? I : unknown;
/** Declaration of one method: its parameter types and return type. */
export interface MethodSpec {
    readonly args?: readonly TypeDescriptor[];
    /** The declared return type (mock `return empty` and value realisation read it). @defaultValue `null` (void) */
    readonly returns?: TypeDescriptor;
    /** Business errors the method declares (the exception filter lets these through unwrapped). */
    readonly throws?: readonly (abstract new (...args: never[]) => Error)[];
}
/** Argument tuple of a method spec. */
export type ArgsOf<M extends MethodSpec> = M['args'] extends infer A extends readonly TypeDescriptor[] ? TypesOf<A> : unknown[];
/** Maps a tuple of descriptors to a tuple of types. */
export type TypesOf<A extends readonly unknown[]> = {
    -readonly [I in keyof A]: TypeOf<A[I]>;
};
/** Return type of a method spec. */
export type ReturnOf<M extends MethodSpec> = M extends {
    returns: infer R;
} ? TypeOf<R> : void;
/** Resolved descriptor of one method. */
export interface MethodDescriptor {
    readonly name: string;
    readonly args: readonly TypeDescriptor[] | undefined;
    readonly returns: TypeDescriptor;
    readonly throws: readonly (abstract new (...args: never[]) => Error)[];
}
/** The consumer-side type of a service: every method returns a promise. */
export type ServiceProxy<M extends Record<string, MethodSpec>> = {
    readonly [K in keyof M]: (...args: ArgsOf<M[K]>) => Promise<ReturnOf<M[K]>>;
};
/** The provider-side type of a service: methods may answer synchronously or with a promise. */
export type ServiceImplementation<M extends Record<string, MethodSpec>> = {
    [K in keyof M]: (...args: ArgsOf<M[K]>) => ReturnOf<M[K]> | Promise<ReturnOf<M[K]>>;
};
/**
 * A typed service definition: the interface name and its methods, known at runtime.
 *
 * @remarks
 * Created with {@link defineService}. TypeScript infers the proxy type ({@link ServiceProxy}) and the
 * implementation type ({@link ServiceImplementation}) from it, so call sites need no casts. Return types are
 * known at runtime: the mock package realises `return` values against them.
 *
 * @example
 * ```ts
 * const Greeter = defineService('org.acme.Greeter', {
 *   sayHello: { args: [String], returns: String },
 *   count: { returns: Number },
 * });
 * type GreeterProxy = ServiceProxy<typeof Greeter.methods>;
 * ```
 */
export declare class ServiceDefinition<M extends Record<string, MethodSpec> = Record<string, MethodSpec>> {
    /** The interface name, e.g. `org.acme.Greeter` (the URL path and `interface` parameter). */
    readonly name: string;
    /** The method specs as declared. */
    readonly methods: M;
    /** Method descriptors by name. */
    readonly methodDescriptors: ReadonlyMap<string, MethodDescriptor>;
    constructor(
    /** The interface name, e.g. `org.acme.Greeter` (the URL path and `interface` parameter). */
    name: string, 
    /** The method specs as declared. */
    methods: M);
    /** The method names, in declaration order. */
    get methodNames(): readonly string[];
    /** One method's descriptor. */
    getMethod(name: string): MethodDescriptor | undefined;
}
/**
 * Defines a service interface: its name and methods with runtime types.
 *
 * @example
 * ```ts
 * export const Greeter = defineService('org.acme.Greeter', {
 *   sayHello: { args: [String], returns: String },
 * });
 * ```
 * @throws `ERR_SPI_INVALID_PARAMETER` for a malformed interface or method name.
 */
export declare function defineService<const M extends Record<string, MethodSpec>>(name: string, methods: M): ServiceDefinition<M>;
//# sourceMappingURL=service-definition.d.ts.map