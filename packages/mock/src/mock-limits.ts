/**
 * The bounds every mock expression is parsed within, so a hostile override cannot exhaust the stack or the CPU.
 *
 * @remarks `maxLength`: a `mock` / `<method>.mock` value longer than this many characters (64 KiB) is refused
 * before it is decoded or parsed. `maxDepth`: arrays and objects of a `return` JSON value nested deeper than this
 * (64 levels) are refused. Both raise `ExtensionError` `ERR_SPI_INVALID_PARAMETER` — at refer or override time
 * through the validator, naming the key. Dubbo has no bounds (its JSON parsers overflow the stack on deep input).
 * @example
 * ```ts
 * if (value.length > MockLimits.maxLength) reject(value);
 * ```
 */
export const MockLimits = {
  /** The longest mock value accepted, in characters. */
  maxLength: 65536,
  /** The deepest nesting of arrays and objects in a `return` value. */
  maxDepth: 64,
} as const;
