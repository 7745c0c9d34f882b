/**
 * The source of randomness for load balancing and jitter, a service of each application.
 *
 * @remarks Registered under `RandomSource` in every application (default: `Math.random`). Tests register
 * {@link RandomSource.seeded} to make distributions reproducible.
 * @example
 * ```ts
 * app.registerService(RandomSource, RandomSource.seeded(42));
 * ```
 */
export declare class RandomSource {
    private readonly source;
    constructor(source?: () => number);
    /** A float in [0, 1). */
    next(): number;
    /** An integer in [0, bound). */
    nextInt(bound: number): number;
    /** A deterministic source (mulberry32) for tests and benchmarks. */
    static seeded(seed: number): RandomSource;
}
//# sourceMappingURL=random-source.d.ts.map