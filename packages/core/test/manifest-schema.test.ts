// Keeps `@weft/core/manifest.schema.json` (what editors check) and `parseManifest` (what Weft checks) in sync,
// without a JSON Schema library: the key sets are derived from the validator's own answers, and a small
// evaluator below (it knows only the keywords the schema uses, and fails on any other) runs the schema over
// the same table of manifests as the validator.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXTENSION_NAME_PATTERN, RESERVED_NAMES, parseManifest } from '@weft/core/spi';

type Schema = boolean | { readonly [keyword: string]: unknown };
type SchemaObject = { readonly [keyword: string]: unknown };

const schema = createRequire(import.meta.url)('@weft/core/manifest.schema.json') as SchemaObject;

// ---------------------------------------------------------------------------------------------------------------
// A minimal draft 2020-12 evaluator for the keywords this schema uses.

const ANNOTATIONS = new Set(['$schema', '$id', '$defs', '$comment', 'title', 'description', 'default', 'examples']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(obj: object, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

function resolveRef(ref: string): Schema {
  if (!ref.startsWith('#/')) throw new Error(`the test's evaluator resolves local references only, not ${ref}`);
  let node: unknown = schema;
  for (const part of ref.slice(2).split('/')) {
    node = isObject(node) ? own(node, part.replace(/~1/g, '/').replace(/~0/g, '~')) : undefined;
  }
  if (node === undefined) throw new Error(`unresolvable reference ${ref}`);
  return node as Schema;
}

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      throw new Error(`the test's evaluator does not know type ${JSON.stringify(type)}`);
  }
}

/** Whether `value` is valid against `node` (a subschema of the manifest schema). */
function valid(node: Schema, value: unknown): boolean {
  if (typeof node === 'boolean') return node;
  for (const keyword of Object.keys(node)) {
    const arg = node[keyword];
    if (ANNOTATIONS.has(keyword)) continue;
    let ok: boolean;
    switch (keyword) {
      case '$ref':
        ok = valid(resolveRef(arg as string), value);
        break;
      case 'type':
        ok = hasType(value, arg);
        break;
      case 'const':
        if (isObject(arg) || Array.isArray(arg))
          throw new Error('the test evaluator compares primitive constants only');
        ok = value === arg;
        break;
      case 'enum':
        ok = (arg as unknown[]).some((candidate) => candidate === value);
        break;
      case 'pattern':
        ok = typeof value !== 'string' || new RegExp(arg as string, 'u').test(value);
        break;
      case 'required':
        ok = !isObject(value) || (arg as string[]).every((key) => Object.prototype.hasOwnProperty.call(value, key));
        break;
      case 'properties':
        ok =
          !isObject(value) ||
          Object.keys(arg as object).every(
            (key) =>
              !Object.prototype.hasOwnProperty.call(value, key) || valid(own(arg as object, key) as Schema, value[key])
          );
        break;
      case 'additionalProperties': {
        const declared = (node['properties'] ?? {}) as object;
        ok =
          !isObject(value) ||
          Object.keys(value).every(
            (key) => Object.prototype.hasOwnProperty.call(declared, key) || valid(arg as Schema, value[key])
          );
        break;
      }
      case 'propertyNames':
        ok = !isObject(value) || Object.keys(value).every((key) => valid(arg as Schema, key));
        break;
      case 'items':
        ok = !Array.isArray(value) || value.every((item) => valid(arg as Schema, item));
        break;
      case 'anyOf':
        ok = (arg as Schema[]).some((sub) => valid(sub, value));
        break;
      case 'not':
        ok = !valid(arg as Schema, value);
        break;
      default:
        throw new Error(
          `the manifest schema uses keyword "${keyword}", which this test's evaluator does not implement`
        );
    }
    if (!ok) return false;
  }
  return true;
}

const schemaAccepts = (value: unknown): boolean => valid(schema, value);

// ---------------------------------------------------------------------------------------------------------------
// Schema navigation

function at(path: string): SchemaObject {
  const node = resolveRef(`#/${path}`);
  if (!isObject(node)) throw new Error(`#/${path} is not a schema object`);
  return node;
}

const entrySchema = at('$defs/entry');
const entryProperty = (key: string): SchemaObject => at(`$defs/entry/properties/${key}`);
/** The object alternative of `wrapper` (the other one is `true`). */
function wrapperObjectSchema(): SchemaObject {
  const alternatives = entryProperty('wrapper')['anyOf'] as Schema[];
  const object = alternatives.find((alt) => isObject(alt) && alt['type'] === 'object');
  if (!isObject(object)) throw new Error('wrapper has no object alternative');
  return object;
}
const propertyKeys = (node: SchemaObject): string[] => Object.keys(node['properties'] as object).sort();

// ---------------------------------------------------------------------------------------------------------------
// The validator's view

const manifestWith = (entry: Record<string, unknown>): string => JSON.stringify({ a: { module: './a.js', ...entry } });

/** The keys the validator accepts at `pointer`, read from its "unknown property (allowed: …)" message. */
function allowedKeys(build: (key: string) => string, pointer: string): string[] {
  const { problems } = parseManifest(build('no-such-key'));
  const message = problems.find((p) => p.startsWith(`${pointer}/no-such-key: unknown property`));
  expect(message, `no unknown-property problem at ${pointer}: ${JSON.stringify(problems)}`).toBeDefined();
  const list = /\(allowed: ([^)]*)\)$/.exec(message as string)?.[1];
  expect(list, `no "allowed" list in ${message}`).toBeDefined();
  return (list as string).split(', ').sort();
}

/** Whether the validator reports `key` at `pointer` as an unknown property. */
function rejectsKey(build: (key: string) => string, pointer: string, key: string): boolean {
  return parseManifest(build(key)).problems.some((p) => p.startsWith(`${pointer}/${key}: unknown property`));
}

const LEVELS = [
  { level: 'entry', pointer: '/a', build: (key: string) => manifestWith({ [key]: 1 }), schema: () => entrySchema },
  {
    level: 'activate',
    pointer: '/a/activate',
    build: (key: string) => manifestWith({ activate: { [key]: 1 } }),
    schema: () => entryProperty('activate'),
  },
  {
    level: 'wrapper',
    pointer: '/a/wrapper',
    build: (key: string) => manifestWith({ wrapper: { [key]: 1 } }),
    schema: wrapperObjectSchema,
  },
] as const;

/** Keys no level accepts: plausible mistakes, and names an object inherits. */
const NEVER_KEYS = [
  'name',
  'class',
  'exports',
  'Module',
  'priority',
  'default',
  'constructor',
  'toString',
  'hasOwnProperty',
];

describe('manifest.schema.json agrees with parseManifest', () => {
  it('is a draft 2020-12 schema with the documented $id, and is itself resolvable', () => {
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['$id']).toBe('https://weft.dev/schema/manifest.schema.json');
    expect(schema['type']).toBe('object');
    expect(schemaAccepts({})).toBe(true);
  });

  it('uses EXTENSION_NAME_PATTERN and RESERVED_NAMES for extension names', () => {
    const name = at('$defs/extensionName');
    expect(name['pattern']).toBe(EXTENSION_NAME_PATTERN.source);
    expect(EXTENSION_NAME_PATTERN.flags).toBe('');
    expect([...((name['not'] as SchemaObject)['enum'] as string[])].sort()).toEqual([...RESERVED_NAMES].sort());
    // Every top-level key is "$schema" or an extension name; every other value is an entry.
    expect(schema['propertyNames']).toMatchObject({ anyOf: [{ const: '$schema' }, { $ref: '#/$defs/extensionName' }] });
    expect(Object.keys(schema['properties'] as object)).toEqual(['$schema']);
    expect(at('properties/$schema')['type']).toBe('string');
    expect(schema['additionalProperties']).toEqual({ $ref: '#/$defs/entry' });
  });

  for (const { level, pointer, build, schema: nodeOf } of LEVELS) {
    it(`allows exactly the ${level} properties the validator allows, and no others`, () => {
      const node = nodeOf();
      const derived = allowedKeys(build, pointer);
      expect(propertyKeys(node)).toEqual(derived);
      expect(node['additionalProperties']).toBe(false);
      for (const key of derived) expect(rejectsKey(build, pointer, key), `${pointer}/${key}`).toBe(false);
      for (const key of NEVER_KEYS) {
        expect(rejectsKey(build, pointer, key), `${pointer}/${key} should be unknown`).toBe(true);
        expect(Object.prototype.hasOwnProperty.call(node['properties'], key)).toBe(false);
      }
    });
  }

  it('requires "module" and nothing else', () => {
    expect(entrySchema['required']).toEqual(['module']);
    expect(parseManifest('{"a":{}}').problems).toEqual([
      '/a/module: required, a path relative to the package such as "./dist/x.js"',
    ]);
    expect(parseManifest('{"a":{"module":"./a.js"}}').problems).toEqual([]);
    expect(schemaAccepts({ a: {} })).toBe(false);
    expect(schemaAccepts({ a: { module: './a.js' } })).toBe(true);
  });

  it('makes exactly activate, wrapper and adaptive mutually exclusive', () => {
    const kinds = { activate: {}, wrapper: true, adaptive: true } as const;
    const pairs = ((entrySchema['not'] as SchemaObject)['anyOf'] as SchemaObject[]).map((alt) =>
      [...(alt['required'] as string[])].sort().join('+')
    );
    expect(pairs.sort()).toEqual(['activate+adaptive', 'activate+wrapper', 'adaptive+wrapper']);
    const names = Object.keys(kinds) as (keyof typeof kinds)[];
    for (const first of names) {
      expect(parseManifest(manifestWith({ [first]: kinds[first] })).problems, first).toEqual([]);
      for (const second of names) {
        if (second <= first) continue;
        const text = manifestWith({ [first]: kinds[first], [second]: kinds[second] });
        expect(parseManifest(text).problems, `${first}+${second}`).toContain(
          '/a: "adaptive", "wrapper" and "activate" are mutually exclusive'
        );
        expect(schemaAccepts(JSON.parse(text)), `${first}+${second}`).toBe(false);
      }
    }
  });

  it('module pattern accepts exactly the paths the validator accepts', () => {
    const pattern = new RegExp(entryProperty('module')['pattern'] as string, 'u');
    const paths = [
      './a.js',
      './dist/tps-limit-filter.js',
      './a.mjs',
      './a.cjs',
      './.js',
      './..js',
      './a/./b.js',
      './a..b.js',
      './dist/.hidden/x.js',
      './/a.js',
      './dir with space/a.js',
      'a.js',
      '/abs/a.js',
      '../a.js',
      '.\\a.js',
      './lib\\a.js',
      './../a.js',
      './a/../b.js',
      './a/..',
      './a.ts',
      './a.json',
      './a.JS',
      './a.js.map',
      './a.jsx',
      './a.js?x=1',
      './a.js#h',
      './a\u0000.js',
      './a\n/../b.js',
      './',
      '',
      'file:///a.js',
      'node:fs.js',
    ];
    for (const path of paths) {
      const validatorAccepts = !parseManifest(JSON.stringify({ a: { module: path } })).problems.some((p) =>
        p.startsWith('/a/module')
      );
      expect(pattern.test(path), JSON.stringify(path)).toBe(validatorAccepts);
    }
  });

  it('export pattern accepts exactly the names the validator accepts', () => {
    const pattern = new RegExp(entryProperty('export')['pattern'] as string, 'u');
    expect(entryProperty('export')['default']).toBe('default');
    const names = [
      'default',
      'TpsLimitFilter',
      '_private',
      '$',
      'a1',
      'A_$9',
      '1a',
      'my-export',
      '',
      'a b',
      'é',
      'a.b',
      'a\n',
    ];
    for (const name of names) {
      const validatorAccepts =
        parseManifest(JSON.stringify({ a: { module: './a.js', export: name } })).problems.length === 0;
      expect(pattern.test(name), JSON.stringify(name)).toBe(validatorAccepts);
    }
  });

  it('wrapper is true or an object, adaptive is only true', () => {
    const wrapperAlternatives = entryProperty('wrapper')['anyOf'] as Schema[];
    expect(wrapperAlternatives).toContainEqual({ const: true });
    expect(entryProperty('adaptive')['const']).toBe(true);
    for (const value of [false, null, 1, 'yes', []]) {
      expect(parseManifest(manifestWith({ wrapper: value })).problems, `wrapper ${JSON.stringify(value)}`).toContain(
        '/a/wrapper: must be true or an object {order, matches, mismatches}'
      );
      expect(parseManifest(manifestWith({ adaptive: value })).problems, `adaptive ${JSON.stringify(value)}`).toContain(
        '/a/adaptive: only the value true is allowed'
      );
    }
  });

  it('documents every property with a title and a description', () => {
    const documented: [string, SchemaObject][] = [
      ['$schema', at('properties/$schema')],
      ...propertyKeys(entrySchema).map((k): [string, SchemaObject] => [k, entryProperty(k)]),
      ...propertyKeys(entryProperty('activate')).map((k): [string, SchemaObject] => [
        `activate.${k}`,
        at(`$defs/entry/properties/activate/properties/${k}`),
      ]),
      ...propertyKeys(wrapperObjectSchema()).map((k): [string, SchemaObject] => [
        `wrapper.${k}`,
        (wrapperObjectSchema()['properties'] as Record<string, SchemaObject>)[k] as SchemaObject,
      ]),
    ];
    for (const [name, node] of documented) {
      expect(typeof node['title'], `${name} title`).toBe('string');
      expect(typeof node['description'], `${name} description`).toBe('string');
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The table

interface Row {
  readonly name: string;
  readonly text: string;
  /** Valid: the number of entries. */
  readonly entries?: number;
  /** Invalid: JSON pointers that must each start a problem (`/a/module: …`). */
  readonly at?: string | readonly string[];
  /** Invalid: a problem matching this (for whole-document problems, which have no pointer). */
  readonly problem?: RegExp;
  /**
   * Rules only the validator can check (the schema accepts the document): non-finite numbers, the
   * one-adaptive-per-manifest rule. Rows whose text is not JSON are not given to the schema at all.
   */
  readonly beyondSchema?: true;
}

const m = (entry: Record<string, unknown>): string => JSON.stringify({ a: { module: './a.js', ...entry } });

const ROWS: readonly Row[] = [
  // valid
  { name: 'minimal entry', text: '{"tps":{"module":"./dist/tps.js"}}', entries: 1 },
  { name: 'empty manifest', text: '{}', entries: 0 },
  {
    name: 'full activated extension',
    text: m({
      export: 'TpsLimitFilter',
      description: 'Limits calls per second.',
      activate: {
        group: ['provider'],
        value: ['tps', 'mode:strict'],
        order: -100,
        before: ['timeout'],
        after: ['echo'],
      },
    }),
    entries: 1,
  },
  {
    name: 'group and value as plain strings',
    text: m({ activate: { group: 'consumer', value: 'cache' } }),
    entries: 1,
  },
  {
    name: '$schema string',
    text: '{"$schema":"../../node_modules/@weft/core/manifest.schema.json","a":{"module":"./a.mjs"}}',
    entries: 1,
  },
  { name: 'wrapper true', text: m({ wrapper: true }), entries: 1 },
  { name: 'wrapper object', text: m({ wrapper: { order: 10, matches: ['a'], mismatches: ['b'] } }), entries: 1 },
  { name: 'adaptive true', text: m({ adaptive: true }), entries: 1 },
  {
    name: 'names with digits and dashes, .cjs',
    text: '{"active-limit":{"module":"./a.cjs"},"2x":{"module":"./b.js"}}',
    entries: 2,
  },
  // whole document
  { name: 'bad JSON', text: '{"a": {"module": "./a.js",}', problem: /^not valid JSON \(/ },
  {
    name: 'array at top level',
    text: '[{"module":"./a.js"}]',
    problem: /^the manifest must be a JSON object mapping extension names to entries$/,
  },
  { name: 'null at top level', text: 'null', problem: /^the manifest must be a JSON object/ },
  { name: 'string at top level', text: '"./a.js"', problem: /^the manifest must be a JSON object/ },
  // names
  { name: 'name Default', text: '{"Default":{"module":"./a.js"}}', at: '/Default' },
  { name: 'name -x', text: '{"-x":{"module":"./a.js"}}', at: '/-x' },
  { name: 'name default', text: '{"default":{"module":"./a.js"}}', at: '/default' },
  { name: 'name true', text: '{"true":{"module":"./a.js"}}', at: '/true' },
  { name: 'name __proto__', text: '{"__proto__":{"module":"./a.js"}}', at: '/__proto__' },
  { name: 'name a_b', text: '{"a_b":{"module":"./a.js"}}', at: '/a_b' },
  { name: 'name a--b', text: '{"a--b":{"module":"./a.js"}}', at: '/a--b' },
  { name: 'empty name', text: '{"":{"module":"./a.js"}}', at: '/' },
  { name: 'name with a slash (pointer-escaped)', text: '{"a/b":{"module":"./a.js"}}', at: '/a~1b' },
  { name: 'unknown top-level key $id', text: '{"$id":"x","a":{"module":"./a.js"}}', at: '/$id' },
  { name: '$schema not a string', text: '{"$schema":1,"a":{"module":"./a.js"}}', at: '/$schema' },
  // entry
  { name: 'entry not an object', text: '{"a":"./a.js"}', at: '/a' },
  { name: 'entry an array', text: '{"a":["./a.js"]}', at: '/a' },
  { name: 'module missing', text: '{"a":{"export":"A"}}', at: '/a/module' },
  { name: 'module not a string', text: '{"a":{"module":42}}', at: '/a/module' },
  { name: 'module absolute', text: '{"a":{"module":"/usr/lib/a.js"}}', at: '/a/module' },
  { name: 'module without ./', text: '{"a":{"module":"dist/a.js"}}', at: '/a/module' },
  { name: 'module ../', text: '{"a":{"module":"./../a.js"}}', at: '/a/module' },
  { name: 'module .. in the middle', text: '{"a":{"module":"./dist/../../a.js"}}', at: '/a/module' },
  { name: 'module backslash', text: '{"a":{"module":"./dist\\\\a.js"}}', at: '/a/module' },
  { name: 'module .ts', text: '{"a":{"module":"./src/a.ts"}}', at: '/a/module' },
  { name: 'module ?query', text: '{"a":{"module":"./a.js?v=1"}}', at: '/a/module' },
  { name: 'module #fragment', text: '{"a":{"module":"./a.js#x"}}', at: '/a/module' },
  { name: 'unknown entry key', text: m({ class: 'A' }), at: '/a/class' },
  { name: 'export not an identifier', text: m({ export: 'my-export' }), at: '/a/export' },
  { name: 'export not a string', text: m({ export: 1 }), at: '/a/export' },
  { name: 'description not a string', text: m({ description: ['x'] }), at: '/a/description' },
  // activate
  { name: 'activate not an object', text: m({ activate: ['provider'] }), at: '/a/activate' },
  { name: 'activate null', text: m({ activate: null }), at: '/a/activate' },
  { name: 'unknown activate key', text: m({ activate: { groups: ['provider'] } }), at: '/a/activate/groups' },
  { name: 'activate.group not strings', text: m({ activate: { group: [1] } }), at: '/a/activate/group' },
  { name: 'activate.value a number', text: m({ activate: { value: 7 } }), at: '/a/activate/value' },
  { name: 'activate.before a string', text: m({ activate: { before: 'timeout' } }), at: '/a/activate/before' },
  { name: 'activate.after not strings', text: m({ activate: { after: [null] } }), at: '/a/activate/after' },
  { name: 'activate.order a string', text: m({ activate: { order: 'high' } }), at: '/a/activate/order' },
  {
    name: 'activate.order not finite',
    text: '{"a":{"module":"./a.js","activate":{"order":1e999}}}',
    at: '/a/activate/order',
    beyondSchema: true,
  },
  // wrapper and adaptive
  { name: 'wrapper false', text: m({ wrapper: false }), at: '/a/wrapper' },
  { name: 'unknown wrapper key', text: m({ wrapper: { match: ['a'] } }), at: '/a/wrapper/match' },
  { name: 'wrapper.matches a string', text: m({ wrapper: { matches: 'a' } }), at: '/a/wrapper/matches' },
  { name: 'wrapper.mismatches not strings', text: m({ wrapper: { mismatches: [1] } }), at: '/a/wrapper/mismatches' },
  {
    name: 'wrapper.order not finite',
    text: '{"a":{"module":"./a.js","wrapper":{"order":-1e400}}}',
    at: '/a/wrapper/order',
    beyondSchema: true,
  },
  { name: 'adaptive false', text: m({ adaptive: false }), at: '/a/adaptive' },
  { name: 'adaptive and activate', text: m({ adaptive: true, activate: {} }), at: '/a' },
  { name: 'wrapper and activate', text: m({ wrapper: true, activate: { order: 1 } }), at: '/a' },
  { name: 'adaptive and wrapper', text: m({ adaptive: true, wrapper: { order: 1 } }), at: '/a' },
  {
    name: 'two adaptive entries',
    text: '{"a":{"module":"./a.js","adaptive":true},"b":{"module":"./b.js","adaptive":true}}',
    at: '/b',
    beyondSchema: true,
  },
  // several problems at once: all are reported
  {
    name: 'every problem is reported',
    text: '{"Bad":{"module":"./a.js"},"a":{"module":"../a.js","export":"x-y","activate":{"order":"1","colour":"red"}}}',
    at: ['/Bad', '/a/module', '/a/export', '/a/activate/order', '/a/activate/colour'],
  },
];

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('parseManifest table', () => {
  it('has enough rows, with unique names', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(25);
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
  });

  for (const row of ROWS) {
    const valid = row.entries !== undefined;
    it(`${valid ? 'accepts' : 'rejects'}: ${row.name}`, () => {
      const { entries, problems } = parseManifest(row.text);
      if (valid) {
        expect(problems).toEqual([]);
        expect(entries).toHaveLength(row.entries as number);
      } else {
        expect(entries, 'an invalid manifest contributes no entries').toEqual([]);
        expect(problems.length).toBeGreaterThan(0);
        const pointers = row.at === undefined ? [] : typeof row.at === 'string' ? [row.at] : row.at;
        for (const pointer of pointers) {
          const prefix = new RegExp(`^${escapeRegExp(pointer)}: \\S`);
          expect(
            problems.some((p) => prefix.test(p)),
            `${pointer} in ${JSON.stringify(problems)}`
          ).toBe(true);
        }
        if (row.problem !== undefined) expect(problems.some((p) => row.problem?.test(p))).toBe(true);
        expect(pointers.length > 0 || row.problem !== undefined, 'row asserts nothing').toBe(true);
      }
      let json: unknown;
      try {
        json = JSON.parse(row.text);
      } catch {
        return; // not JSON: the validator's problem was asserted above, and there is nothing to give the schema
      }
      expect(schemaAccepts(json), 'the schema agrees').toBe(row.beyondSchema === true ? true : valid);
    });
  }

  it('reads what a valid entry declares', () => {
    const [entry] = parseManifest(
      m({
        export: 'Tps',
        description: 'd',
        activate: { group: 'provider', value: ['tps', 'mode:strict:x'], order: -1, after: [' echo '] },
      })
    ).entries;
    expect(entry).toMatchObject({
      name: 'a',
      kind: 'extension',
      module: './a.js',
      exportName: 'Tps',
      description: 'd',
      activate: {
        groups: ['provider'],
        conditions: [
          { key: 'tps', expected: undefined },
          { key: 'mode', expected: 'strict' },
        ],
        order: -1,
        before: [],
        after: ['echo'],
      },
      wrapper: undefined,
    });
    expect(parseManifest(m({})).entries[0]).toMatchObject({
      exportName: 'default',
      kind: 'extension',
      activate: undefined,
    });
    expect(parseManifest(m({ wrapper: true })).entries[0]).toMatchObject({
      kind: 'wrapper',
      wrapper: { order: 0, matches: [], mismatches: [] },
    });
    expect(parseManifest(m({ adaptive: true })).entries[0]).toMatchObject({
      kind: 'adaptive',
      wrapper: undefined,
      activate: undefined,
    });
  });

  it('drops every entry of a manifest with any problem', () => {
    const result = parseManifest('{"good":{"module":"./good.js"},"bad":{"module":"./bad.ts"}}');
    expect(result.problems).toEqual(['/bad/module: "./bad.ts" must name a JavaScript file (.js, .mjs or .cjs)']);
    expect(result.entries).toEqual([]);
  });
});

/** The fixture manifests that are broken on purpose (the others are valid, even when their code is not). */
const INVALID_FIXTURES = new Set([
  'broken-point/META-INF/weft/fixture.broken.Garbled.json',
  'broken-point/META-INF/weft/fixture.broken.Invalid.json',
]);

describe('fixture manifests', () => {
  const pkgs = fileURLToPath(new URL('./fixtures/pkgs/', import.meta.url));
  const files = readdirSync(pkgs).flatMap((pkg) => {
    let names: string[];
    try {
      names = readdirSync(`${pkgs}${pkg}/META-INF/weft`);
    } catch {
      return [];
    }
    return names.filter((n) => n.endsWith('.json')).map((n) => `${pkg}/META-INF/weft/${n}`);
  });

  it('finds the fixture manifests', () => {
    expect(files).toContain('greeter-spi/META-INF/weft/fixture.greeting.Greeter.json');
    expect(files).toContain('broken-point/META-INF/weft/fixture.broken.Invalid.json');
  });

  for (const file of files) {
    it(`schema and validator agree on ${file}`, () => {
      const text = readFileSync(`${pkgs}${file}`, 'utf8');
      const { problems } = parseManifest(text);
      let json: unknown;
      try {
        json = JSON.parse(text.replace(/^\uFEFF/, '')); // the validator accepts a byte order mark, as Node does
      } catch {
        expect(problems).toEqual([expect.stringMatching(/^not valid JSON/)]);
        return;
      }
      expect(schemaAccepts(json)).toBe(problems.length === 0);
      expect(problems.length === 0, JSON.stringify(problems)).toBe(!INVALID_FIXTURES.has(file));
    });
  }

  it('reports each problem of the deliberately invalid fixture at its pointer', () => {
    const text = readFileSync(`${pkgs}broken-point/META-INF/weft/fixture.broken.Invalid.json`, 'utf8');
    const pointers = parseManifest(text).problems.map((p) => p.slice(0, p.indexOf(': ')));
    expect(pointers.sort()).toEqual([
      '/Bad_Name',
      '/__proto__',
      '/escape/module',
      '/weird/activate/colour',
      '/weird/activate/order',
    ]);
  });
});

describe('prototype safety', () => {
  it('never pollutes Object.prototype', () => {
    const texts = [
      '{"__proto__": {"polluted": 1}}',
      '{"a": {"module": "./a.js", "activate": {"__proto__": {"x": 1}}}}',
      '{"a": {"module": "./a.js", "wrapper": {"__proto__": {"y": 1}}}}',
      '{"a": {"__proto__": {"module": "./a.js", "z": 1}}}',
    ];
    const results = texts.map((text) => parseManifest(text));
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
    expect(({} as Record<string, unknown>)['y']).toBeUndefined();
    expect(({} as Record<string, unknown>)['z']).toBeUndefined();
    for (const key of ['polluted', 'x', 'y', 'z'])
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, key)).toBe(false);
    // … and rejects each of them, at the right place.
    expect(results.map((r) => r.problems.map((p) => p.slice(0, p.indexOf(': '))))).toEqual([
      ['/__proto__'],
      ['/a/activate/__proto__'],
      ['/a/wrapper/__proto__'],
      ['/a/__proto__', '/a/module'],
    ]);
    for (const r of results) expect(r.entries).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// docs/reference/manifest.md cannot rot: its examples, error table and property table are checked here.

describe('docs/reference/manifest.md', () => {
  // This file is packages/core/test/; the repository root is three levels up.
  const doc = readFileSync(fileURLToPath(new URL('../../../docs/reference/manifest.md', import.meta.url)), 'utf8');
  const lines = doc.split(/\r?\n/);

  /** The lines of the section under `heading`, up to the next heading of the same or a higher level. */
  function section(heading: string): string[] {
    const start = lines.indexOf(heading);
    if (start < 0) throw new Error(`manifest.md has no line "${heading}"`);
    const level = /^#+/.exec(heading)?.[0].length ?? 0;
    const end = lines.findIndex(
      (line, i) => i > start && /^#+ /.test(line) && (/^#+/.exec(line)?.[0].length ?? 0) <= level
    );
    return lines.slice(start + 1, end < 0 ? undefined : end);
  }

  it('shows example manifests that are valid for the validator and the schema', () => {
    const blocks = doc
      .split('<!-- manifest -->\n```json\n')
      .slice(1)
      .map((rest) => rest.slice(0, rest.indexOf('\n```')));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) {
      const { entries, problems } = parseManifest(block);
      expect(problems, block).toEqual([]);
      expect(entries.length, block).toBeGreaterThan(0);
      expect(schemaAccepts(JSON.parse(block)), block).toBe(true);
    }
    const kinds = new Set(blocks.flatMap((b) => parseManifest(b).entries.map((e) => e.kind)));
    expect([...kinds].sort()).toEqual(['adaptive', 'extension', 'wrapper']);
  });

  it('quotes the problems exactly as parseManifest reports them', () => {
    const body = section('## Validation errors');
    const header = body.indexOf('| Rule | Manifest | Problem |');
    expect(header, 'the "| Rule | Manifest | Problem |" table').toBeGreaterThanOrEqual(0);
    const tableLines = body.slice(header + 2);
    const tableEnd = tableLines.findIndex((line) => !line.startsWith('|'));
    const rowLines = tableEnd < 0 ? tableLines : tableLines.slice(0, tableEnd);
    expect(rowLines.length).toBeGreaterThanOrEqual(25);
    for (const line of rowLines) {
      const match = /^\|[^|]*\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|\s*$/.exec(line);
      expect(match, `row not in the form | rule | \`manifest\` | \`problem\` |: ${line}`).not.toBeNull();
      const [, manifest, message] = match as RegExpExecArray;
      const expected = new RegExp(`^${(message as string).split('…').map(escapeRegExp).join('.*')}$`);
      const { problems } = parseManifest(manifest as string);
      expect(
        problems.some((p) => expected.test(p)),
        `${manifest} → ${message}; got ${JSON.stringify(problems)}`
      ).toBe(true);
    }
  });

  it('has a row in the properties table for every property of the schema', () => {
    const documented = section('### Properties')
      .map((line) => /^\|\s*`([^`]+)`\s*\|/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined)
      .sort();
    const expected = [
      '$schema',
      '<name>',
      ...propertyKeys(entrySchema),
      ...propertyKeys(entryProperty('activate')).map((k) => `activate.${k}`),
      ...propertyKeys(wrapperObjectSchema()).map((k) => `wrapper.${k}`),
    ].sort();
    expect(documented).toEqual(expected);
  });
});
