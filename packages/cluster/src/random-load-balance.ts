import { RandomSource, type Invocation, type Invoker, type URL } from '@weft/core';
import { Inject } from '@weft/core/spi';

import { AbstractLoadBalance } from './abstract-load-balance.js';

/**
 * Weighted random choice: the default `LoadBalance` extension, `random`.
 *
 * @remarks
 * Extension `random` of `weft.rpc.LoadBalance` (the point's default), application scope, singleton. Each
 * provider is chosen with probability `weight / totalWeight` (weights with warmup, see
 * {@link AbstractLoadBalance}); when all weights are equal, or all are 0, the choice is uniform. Randomness comes
 * from the application's `RandomSource` service (register `RandomSource.seeded(n)` for reproducible tests).
 *
 * Dubbo decides whether to weight at all by looking only at the first provider's URL (flaw §8.16), so a
 * `weight` set on any other provider is ignored; here every provider's weight counts.
 *
 * @example
 * ```ts
 * const lb = app.getExtensionLoader(LoadBalance).getExtension('random');
 * const chosen = lb.select(invokers, consumerUrl, new Invocation({ methodName: 'sayHello' }));
 * ```
 */
export class RandomLoadBalance extends AbstractLoadBalance {
  /** Prefix sums of the weights, reused between calls (selection is synchronous). */
  private prefix: number[] = [];

  constructor(@Inject(RandomSource) private readonly random: RandomSource) {
    super();
  }

  protected doSelect(invokers: readonly Invoker[], _url: URL, invocation: Invocation): Invoker {
    const length = invokers.length;
    const prefix = this.prefix;
    const now = Date.now();
    let total = 0;
    let first = 0;
    let sameWeight = true;
    for (let i = 0; i < length; i++) {
      const weight = this.getWeight(invokers[i] as Invoker, invocation, now);
      if (i === 0) first = weight;
      else if (sameWeight && weight !== first) sameWeight = false;
      total += weight;
      prefix[i] = total;
    }
    if (total > 0 && !sameWeight) {
      const offset = this.random.next() * total;
      if (length <= 4) {
        for (let i = 0; i < length; i++) if (offset < (prefix[i] as number)) return invokers[i] as Invoker;
      } else {
        // The first index whose prefix sum exceeds the offset (zero-weight providers are never returned).
        let lo = 0;
        let hi = length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if ((prefix[mid] as number) > offset) hi = mid;
          else lo = mid + 1;
        }
        return invokers[lo] as Invoker;
      }
    }
    return invokers[this.random.nextInt(length)] as Invoker;
  }
}
