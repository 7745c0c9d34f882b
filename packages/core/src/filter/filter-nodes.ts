import type { Invocation } from '../rpc/invocation.js';
import { Invoker } from '../rpc/invoker.js';
import { Result } from '../rpc/result.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import type { Filter } from './filter.js';

/**
 * A link of the chain: calls its filter with the next link, and checks that it answered with a `Result` or a
 * promise of one.
 *
 * @remarks
 * The engine keeps type feedback per function literal, so a single `invoke` shared by every link would see every
 * filter class at its `this.filter.invoke(…)` call site — megamorphic past four, an inline-cache miss per link.
 * The chain therefore uses the subclasses below, one literal `invoke` each, the k-th distinct filter class of a
 * chain taking the k-th link class: each call site sees the filter class found at that rank — one in a chain, the
 * same in every chain built from the same activation list — and each filter's own `invoker.invoke(…)` sees one
 * link class, so both stay monomorphic and the engine can inline across the chain.
 */
export abstract class FilterNode extends Invoker {
  /** At the head of a chain whose filters have `onChainReleased`: calls them (once), on destroy or unexport. */
  declare release: (() => void) | undefined;

  constructor(
    readonly filter: Filter,
    readonly name: string,
    protected readonly next: Invoker,
    protected readonly origin: Invoker,
  ) {
    super();
    this.release = undefined;
  }

  getUrl(): URL {
    return this.origin.getUrl();
  }

  override isAvailable(): boolean {
    return this.origin.isAvailable();
  }

  override getService(): ServiceDefinition | undefined {
    return this.origin.getService();
  }

  override destroy(): void | Promise<void> {
    this.release?.();
    return this.origin.destroy();
  }
}

/**
 * Whether a filter's answer is one: a `Result`, or a promise of one (Weft's `PendingResult`, a native promise, any
 * thenable). One check for a completed call, two for a pending one — per link, so kept to the minimum.
 */
export function isAnswer(answer: unknown): answer is Result | Promise<Result> {
  return answer instanceof Result || (typeof answer === 'object' && answer !== null && typeof (answer as { then?: unknown }).then === 'function');
}

/** The rejection for a filter that answered with something else. */
export function badAnswer(value: unknown, name: string): Promise<Result> {
  // An object reaches here only at the outermost link: a filter inside it may have returned it.
  const who = typeof value === 'object' && value !== null ? `Filter "${name}" (or a filter inside it)` : `Filter "${name}"`;
  return Promise.reject(
    new RpcError(
      RpcErrorCode.UNKNOWN,
      `${who} returned ${value === null ? 'null' : typeof value} instead of a Result or a Promise<Result>: ` +
        'Filter.invoke must return invoker.invoke(invocation) (or a Result, or a promise of one).',
    ),
  );
}

// One class per rank, each with its own `invoke` literal (identical bodies on purpose: see FilterNode). Inner
// links check only that the answer is an object — which names the filter for the usual mistakes (a missing
// `return`: undefined; null; a primitive) at the cost of one `typeof` — and the outermost filter's (rank 0) checks
// that it is a Result or a thenable: a full check on every link would cost a third of a ten-filter chain, mostly by
// exhausting the engine's inlining budget.

class FilterNode0 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return isAnswer(answer) ? answer : badAnswer(answer, this.name);
  }
}

class FilterNode1 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode2 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode3 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode4 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode5 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode6 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode7 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode8 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode9 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode10 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode11 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode12 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode13 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode14 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

class FilterNode15 extends FilterNode {
  invoke(invocation: Invocation): Result | Promise<Result> {
    const answer: unknown = this.filter.invoke(this.next, invocation);
    return typeof answer === 'object' && answer !== null ? (answer as Result | Promise<Result>) : badAnswer(answer, this.name);
  }
}

/** The link classes, by rank (a chain with more distinct filter classes than this reuses them from the start). */
type NodeClass = new (filter: Filter, name: string, next: Invoker, origin: Invoker) => FilterNode;
const NODE_CLASSES: readonly NodeClass[] = Object.freeze([
  FilterNode0,
  FilterNode1,
  FilterNode2,
  FilterNode3,
  FilterNode4,
  FilterNode5,
  FilterNode6,
  FilterNode7,
  FilterNode8,
  FilterNode9,
  FilterNode10,
  FilterNode11,
  FilterNode12,
  FilterNode13,
  FilterNode14,
  FilterNode15,
]);

/** The link for a filter whose class is the `rank`-th distinct one of its chain (0: outermost). */
export function filterNode(rank: number, filter: Filter, name: string, next: Invoker, origin: Invoker): FilterNode {
  const NodeClass = NODE_CLASSES[rank % NODE_CLASSES.length] as NodeClass;
  return new NodeClass(filter, name, next, origin);
}
