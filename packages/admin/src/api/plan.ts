import { URL, type Registry } from '@weft/core';

/** One registry change of a plan. */
export interface PlannedRule {
  readonly op: 'write' | 'delete';
  /** Where it lives in the registry (ZooKeeper's node path; the same layout in an embedded registry). */
  readonly node: string;
  /** The rule URL, or the config-centre document's text. */
  readonly url: string;
}

/**
 * What an action will do: a sentence, the registry changes, the same changes as zkCli commands and as a `weft`
 * command line.
 *
 * @example
 * ```ts
 * const plan: Plan = { summary: 'Force mock on org.acme.Greeter', rules: [], zkCli: [], cli: 'weft override set …' };
 * ```
 */
export interface Plan {
  readonly summary: string;
  readonly rules: readonly PlannedRule[];
  readonly zkCli: readonly string[];
  readonly cli: string;
}

/**
 * Quotes a word for a POSIX shell: as is when it is plain, else in single quotes.
 *
 * @example
 * ```ts
 * shellQuote('sayHello.mock=force:return "x"'); // `'sayHello.mock=force:return "x"'`
 * ```
 */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A `weft` command line from its words. */
export function weftCommand(words: readonly string[]): string {
  return ['weft', ...words.map(shellQuote)].join(' ');
}

/** The registry root (`/dubbo`, or the registry URL's `group`). */
function rootOf(registryUrl: URL): string {
  const group = registryUrl.getParameter('group') ?? 'dubbo';
  const root = group.startsWith('/') ? group : `/${group}`;
  return root === '/' ? '' : root.replace(/\/+$/, '');
}

/**
 * The node a registered rule URL lives at: the registry's own answer when it has one (ZooKeeper's `toUrlPath`),
 * else Dubbo's layout `/<root>/<interface>/<category>/<URL-encoded rule>`.
 *
 * @example
 * ```ts
 * nodeOf(registry, registryUrl, rule); // '/dubbo/org.acme.Greeter/configurators/override%3A%2F%2F…'
 * ```
 */
export function nodeOf(registry: Registry, registryUrl: URL, rule: URL): string {
  const own = (registry as unknown as { toUrlPath?: (u: URL) => string }).toUrlPath;
  if (typeof own === 'function') return own.call(registry, rule);
  const category = rule.getParameter('category') ?? 'configurators';
  return `${rootOf(registryUrl)}/${URL.encode(rule.getServiceInterface() ?? rule.path)}/${category}/${URL.encode(rule.toDecodedString(true))}`;
}

/** zkCli commands for a plan's rules (`create <node>` / `delete <node>`; documents `create <node> '<text>'`). */
export function zkCliOf(rules: readonly PlannedRule[], documents = false): string[] {
  return rules.map((r) => {
    if (r.op === 'delete') return `delete ${r.node}`;
    return documents ? `create ${r.node} ${shellQuote(r.url)}` : `create ${r.node}`;
  });
}
