/** Slots of a {@link StringTable} (a power of two). */
const SLOTS = 1024;
/** The longest string a table keeps, in bytes (= characters: ASCII only). */
const MAX_LENGTH = 32;

/**
 * The short ASCII strings decoded recently, so that the same bytes decode to the same string again without making
 * it: Dubbo bodies repeat their service path, version, method, parameter descriptor and attachment keys in every
 * request and response.
 *
 * @remarks A fixed table of 1,024 slots, each one string of at most 32 characters, chosen by a hash of the bytes and
 * confirmed character by character (a collision only replaces the slot). Bounded whatever the input: hostile bodies
 * can only make it miss. A scope object: one per serialization instance, never module state.
 * @example
 * ```ts
 * const strings = new StringTable();
 * strings.ascii(bytes, 0, 4) === strings.ascii(bytes, 0, 4); // true: the second read is the first string
 * ```
 */
export class StringTable {
  private readonly slots: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);

  /** Whether strings of `length` characters are kept. */
  static keeps(length: number): boolean {
    return length <= MAX_LENGTH;
  }

  /** The string of `bytes[start, start + length)`, all ASCII, `length` ≤ 32: the table's, or a new one kept. */
  ascii(bytes: Uint8Array, start: number, length: number): string {
    const end = start + length;
    let hash = length;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
    const slot = (hash >>> 0) & (SLOTS - 1);
    const known = this.slots[slot];
    if (known !== undefined && known.length === length && same(known, bytes, start)) return known;
    let text = '';
    for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i] as number);
    this.slots[slot] = text;
    return text;
  }
}

function same(text: string, bytes: Uint8Array, start: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== bytes[start + i]) return false;
  return true;
}
