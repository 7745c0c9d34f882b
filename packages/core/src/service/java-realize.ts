import type { JavaType } from './java-types.js';

/** A realising node (see realizer.ts): converts one value, `depth` containers deep. */
type Node = (value: unknown, depth: number) => unknown;

/** What the realizer lends this file, so the two do not import each other. */
export interface RealizeKit {
  arrayNode(name: string, element: Node): Node;
  setNode(name: string, element: Node): Node;
  mapNode(name: string, key: Node, value: Node): Node;
  Mismatch: new (expected: string, value: unknown, reason?: string) => unknown;
  tooDeep(value: unknown): unknown;
}

const pass: Node = (value) => value;

function isNumericString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value));
}

/** The realising node of a Java type: values become the JavaScript type {@link JavaType} documents. */
export function javaNode(type: JavaType, element: Node | undefined, key: Node | undefined, kit: RealizeKit): Node {
  const name = type.className;
  const fail = (value: unknown, reason?: string): never => {
    throw new kit.Mismatch(name, value, reason);
  };
  switch (type.kind) {
    case 'boolean':
      return (value) => {
        if (typeof value === 'boolean' || value === undefined || value === null) return value;
        if (value === 'true' || value === 'false') return value === 'true';
        return fail(value);
      };
    case 'byte':
    case 'short':
    case 'int':
    case 'float':
    case 'double':
      return (value) => {
        if (typeof value === 'number' || value === undefined || value === null) return value;
        if (typeof value === 'bigint') return Number(value);
        if (isNumericString(value)) return Number(value);
        return fail(value);
      };
    case 'long':
      return (value) => {
        if (value === undefined || value === null) return value;
        if (typeof value === 'number') return Number.isInteger(value) ? value : fail(value);
        let big: bigint;
        if (typeof value === 'bigint') big = value;
        else if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) big = BigInt(value.trim());
        else return fail(value);
        if (big > 0x7fffffffffffffffn || big < -0x8000000000000000n) return fail(value, `${big} is outside the range of a Java long`);
        return big <= BigInt(Number.MAX_SAFE_INTEGER) && big >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(big) : big;
      };
    case 'char':
      return (value) => {
        if (value === undefined || value === null) return value;
        if (typeof value === 'string' && value.length === 1) return value;
        if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff) return String.fromCharCode(value);
        return fail(value);
      };
    case 'string':
      return (value) => {
        if (typeof value === 'string' || value === undefined || value === null) return value;
        if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
        return fail(value);
      };
    case 'bytes':
      return (value) => {
        if (value instanceof Uint8Array || value === undefined || value === null) return value;
        if (Array.isArray(value) && value.every((b) => typeof b === 'number')) return Uint8Array.from(value as number[]);
        return fail(value);
      };
    case 'list':
    case 'array': {
      const node = kit.arrayNode(name, element ?? pass);
      return (value, depth) => node(value instanceof Set ? [...value] : value, depth);
    }
    case 'set':
      return kit.setNode(name, element ?? pass);
    case 'map':
      return kit.mapNode(name, key ?? pass, element ?? pass);
    case 'decimal':
      return (value) => {
        if (value === undefined || value === null) return value;
        if (typeof value === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value)) return value;
        if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') return String(value);
        if (typeof value === 'object' && typeof (value as { value?: unknown }).value === 'string') return (value as { value: string }).value;
        return fail(value);
      };
    case 'enum': {
      const constants = type.constants === undefined ? undefined : new Set(type.constants);
      return (value) => {
        if (value === undefined || value === null) return value;
        const constant = typeof value === 'object' ? (value as { name?: unknown }).name : value;
        if (typeof constant !== 'string') return fail(value);
        if (constants !== undefined && !constants.has(constant)) {
          return fail(value, `${JSON.stringify(constant)} is not a constant of ${name} (expected one of ${[...constants].join(', ')})`);
        }
        return constant;
      };
    }
    default:
      return pass;
  }
}
