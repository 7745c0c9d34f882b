import { createHash } from 'node:crypto';

import { ExtensionError, ExtensionErrorCode, type Invocation, type Invoker } from '@weft/core';

import { ClusterKeys } from './cluster-keys.js';

const COMMA_SPLIT = /\s*,+\s*/;

function md5(text: string): Buffer {
  return createHash('md5').update(text, 'utf8').digest();
}

/**
 * The hash ring of one provider list for one method, as built by `consistenthash`.
 *
 * @remarks
 * For each provider address `host:port` and each `i` in `0 .. replicas/4 - 1`, `md5(address + i)` gives four
 * points (the unsigned little-endian 32-bit integers of digest bytes 0-3, 4-7, 8-11, 12-15); a point shared by
 * two providers goes to the later one (as Dubbo's `TreeMap.put`). With weights, a provider gets
 * `max(1, round(groups × weight / maxWeight))` of the `replicas/4` groups (all of them at the highest weight, so
 * equal weights give Dubbo's ring); a provider of weight 0 gets none while another weight is positive (drained). A call's key is the concatenation of
 * `String(args[i])` for the configured indexes in range; its point is the first of `md5(key)`, and the provider
 * is the one at the first ring point ≥ it, wrapping around.
 *
 * @example
 * ```ts
 * const selector = new ConsistentHashSelector(invokers, 'sayHello', 160, '0');
 * const invoker = selector.select(invocation);
 * ```
 * @internal
 */
export class ConsistentHashSelector {
  private readonly points: Uint32Array;
  private readonly owners: Invoker[];
  private readonly argumentIndexes: readonly number[];
  private readonly invokers: readonly Invoker[];
  private readonly weights: readonly number[];

  constructor(
    invokers: readonly Invoker[],
    method: string,
    private readonly replicas: number,
    private readonly argumentsText: string,
    weights: readonly number[] = []
  ) {
    this.invokers = [...invokers];
    this.weights = [...weights];
    this.argumentIndexes = argumentsText
      .trim()
      .split(COMMA_SPLIT)
      .filter((part) => part !== '')
      .map((part) => {
        if (!/^[+-]?\d+$/.test(part)) {
          throw new ExtensionError(
            ExtensionErrorCode.INVALID_PARAMETER,
            `Invalid value "${argumentsText}" of parameter "${ClusterKeys.HASH_ARGUMENTS}" (method "${method}"): ` +
              `expected comma-separated argument indexes such as "0,1".`
          );
        }
        return Number(part);
      });
    const ring = new Map<number, Invoker>();
    const groups = Math.max(1, Math.floor(replicas / 4));
    const maxWeight = weights.reduce((max, w) => (w > max ? w : max), 0);
    invokers.forEach((invoker, index) => {
      const weight = weights[index] ?? maxWeight;
      if (maxWeight > 0 && weight <= 0) return; // drained
      // Virtual nodes in proportion to the weight (all of them at the highest weight, at least one group).
      const own = maxWeight > 0 ? Math.max(1, Math.round((groups * weight) / maxWeight)) : groups;
      const address = invoker.getUrl().getAddress();
      for (let i = 0; i < own; i++) {
        const digest = md5(address + i);
        for (let h = 0; h < 4; h++) ring.set(digest.readUInt32LE(h * 4), invoker);
      }
    });
    this.points = Uint32Array.from(ring.keys()).sort();
    this.owners = Array.from(this.points, (point) => ring.get(point) as Invoker);
  }

  /** Whether this ring was built from the same providers (same order) and the same settings. */
  matches(invokers: readonly Invoker[], replicas: number, argumentsText: string, weights: readonly number[] = []): boolean {
    if (replicas !== this.replicas || argumentsText !== this.argumentsText) return false;
    const own = this.invokers;
    if (own.length !== invokers.length) return false;
    for (let i = 0; i < own.length; i++) if (own[i] !== invokers[i]) return false;
    const ownWeights = this.weights;
    if (ownWeights.length !== weights.length) return false;
    for (let i = 0; i < ownWeights.length; i++) if (ownWeights[i] !== weights[i]) return false;
    return true;
  }

  /** The provider for this invocation's key. */
  select(invocation: Invocation): Invoker {
    const args = invocation.args;
    let key = '';
    for (const index of this.argumentIndexes) if (index >= 0 && index < args.length) key += String(args[index]);
    return this.selectForHash(md5(key).readUInt32LE(0));
  }

  private selectForHash(hash: number): Invoker {
    const points = this.points;
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((points[mid] as number) < hash) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === points.length ? 0 : lo] as Invoker;
  }
}
