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
export class RandomSource {
    source;
    constructor(source = Math.random) {
        this.source = source;
    }
    /** A float in [0, 1). */
    next() {
        return this.source();
    }
    /** An integer in [0, bound). */
    nextInt(bound) {
        return Math.floor(this.source() * bound);
    }
    /** A deterministic source (mulberry32) for tests and benchmarks. */
    static seeded(seed) {
        let state = seed >>> 0;
        return new RandomSource(() => {
            state = (state + 0x6d2b79f5) >>> 0;
            let t = state;
            t = Math.imul(t ^ (t >>> 15), t | 1);
            t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
            return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
        });
    }
}
//# sourceMappingURL=random-source.js.map