/** A class definition as written: the Java class name and its fields in wire order; `key` identifies it in a body. */
export interface ClassDef {
  readonly name: string;
  readonly fields: readonly string[];
  readonly key: string;
}

/** A class definition for `name` with `fields`. */
export function classDef(name: string, fields: readonly string[]): ClassDef {
  return Object.freeze({ name, fields: Object.freeze([...fields]), key: `${name}\u0000${fields.join(',')}` });
}
