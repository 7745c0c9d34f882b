// Activation (`getActivateExtensions`): the rule table of spec §1.9 (Dubbo 3.x), plus Weft's deliberate
// differences: a total order (order, before/after as real constraints, then extension name) and a cached,
// frozen result.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExtensionError, ExtensionErrorCode, FrameworkModel, URL, type ExtensionLoader } from '@weft/core';
import { Activate, isConfigNotEmpty, SPI, type ActivateOptions } from '@weft/core/spi';

@SPI({ id: 'test.act.Thing' })
abstract class Thing {
  abstract kind(): string;
}

/** A fresh extension class (one class per name, so `getExtensionName(instance)` is unambiguous). */
function makeThing(): new () => Thing {
  return class extends Thing {
    kind(): string {
      return 'thing';
    }
  };
}

@Activate({ group: 'provider', order: 1 })
class ProviderThing extends Thing {
  kind(): string {
    return 'provider';
  }
}

@Activate({ group: ['provider', 'consumer'], order: 3 })
class BothSidesThing extends Thing {
  kind(): string {
    return 'both';
  }
}

@Activate()
class UngroupedThing extends Thing {
  kind(): string {
    return 'ungrouped';
  }
}

@Activate({ group: 'provider', order: 10 })
class Auto1 extends Thing {
  kind(): string {
    return 'auto1';
  }
}

let root: string;
let framework: FrameworkModel;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weft-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
  framework = FrameworkModel.create({ root });
});

afterAll(async () => {
  await framework.destroy();
  rmSync(root, { recursive: true, force: true });
});

let appCounter = 0;

/** A loader of `Thing` in a fresh application, with the given extensions registered in order. */
function loaderWith(
  extensions: ReadonlyArray<readonly [string, (new () => Thing) | undefined, ActivateOptions?]>,
): ExtensionLoader<Thing> {
  const loader = framework.newApplication(`t${++appCounter}`).getExtensionLoader(Thing);
  for (const [name, cls, activate] of extensions) {
    loader.addExtension(name, cls ?? makeThing(), activate === undefined ? {} : { activate });
  }
  return loader;
}

function namesOf(loader: ExtensionLoader<Thing>, list: readonly Thing[]): (string | undefined)[] {
  return list.map((e) => loader.getExtensionName(e));
}

/** Activated names for `t://h/svc?<query>`, with key `service.filter`. */
function activated(loader: ExtensionLoader<Thing>, query: string, group?: string): (string | undefined)[] {
  const url = URL.parse(`t://h/svc${query === '' ? '' : `?${query}`}`);
  return namesOf(loader, loader.getActivateExtensions(url, 'service.filter', group));
}

function thrown(fn: () => unknown, code: string): ExtensionError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(code);
    return error as ExtensionError;
  }
  throw new Error(`expected an ExtensionError ${code}`);
}

describe('ConfigUtils-not-empty', () => {
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['', false],
    ['false', false],
    ['FaLsE', false],
    ['0', false],
    ['null', false],
    ['Null', false],
    ['N/A', false],
    ['n/a', false],
    ['true', true],
    ['00', true],
    ['0.0', true],
    [' ', true],
    ['no', true],
  ])('isConfigNotEmpty(%j) is %j', (value, expected) => {
    expect(isConfigNotEmpty(value)).toBe(expected);
  });
});

describe('group matching', () => {
  const loader = () =>
    loaderWith([
      ['p', ProviderThing],
      ['pc', BothSidesThing],
      ['c', undefined, { group: ['consumer'], order: 2 }],
      ['n', UngroupedThing],
      ['plain', undefined],
    ]);

  it.each<[string | undefined, string[]]>([
    [undefined, ['n', 'p', 'c', 'pc']],
    ['', ['n', 'p', 'c', 'pc']],
    ['provider', ['p', 'pc']],
    ['consumer', ['c', 'pc']],
    ['registry', []],
    ['Provider', []],
  ])('group %j activates %j', (group, expected) => {
    expect(activated(loader(), '', group)).toEqual(expected);
  });

  it('an extension without @Activate is never activated automatically, even with no group asked', () => {
    expect(activated(loader(), '')).not.toContain('plain');
  });
});

describe('value conditions', () => {
  const loader = () =>
    loaderWith([
      ['cache', undefined, { value: 'cache' }],
      ['mode', undefined, { value: ['mode:fast'] }],
      ['triple', undefined, { value: ['level:b:c'] }],
      ['any-of', undefined, { value: ['k1', 'k2'] }],
      ['off', undefined, { value: ['flag:false'] }],
      ['always', undefined, { value: [] }],
    ]);

  it.each<[string, string[]]>([
    ['', ['always']],
    // key only: present with a ConfigUtils-not-empty value
    ['cache=lru', ['always', 'cache']],
    ['cache=true', ['always', 'cache']],
    ['cache=1', ['always', 'cache']],
    ['cache=false', ['always']],
    ['cache=FALSE', ['always']],
    ['cache=0', ['always']],
    ['cache=null', ['always']],
    ['cache=NULL', ['always']],
    ['cache=N/A', ['always']],
    ['cache=n/a', ['always']],
    ['cache=', ['always']],
    ['cache', ['always']],
    ['other.key=cache', ['always']],
    // method level, read through getAnyMethodParameter when the plain key is empty
    ['sayHello.cache=lru', ['always', 'cache']],
    ['cache=&sayHello.cache=lru', ['always', 'cache']],
    ['sayHello.cache=false', ['always']],
    ['methods=a,b&a.cache=&b.cache=lru', ['always', 'cache']],
    ['methods=a&b.cache=lru', ['always']],
    // key:expected is an exact (case-sensitive) match
    ['mode=fast', ['always', 'mode']],
    ['mode=slow', ['always']],
    ['mode=FAST', ['always']],
    ['mode=', ['always']],
    ['sayHello.mode=fast', ['always', 'mode']],
    // an expected value is compared as is, even a ConfigUtils-empty one
    ['flag=false', ['always', 'off']],
    ['flag=true', ['always']],
    // a:b:c behaves as a:b
    ['level=b', ['always', 'triple']],
    ['level=b:c', ['always']],
    ['level=c', ['always']],
    // any of several values
    ['k1=1', ['always', 'any-of']],
    ['k2=yes', ['always', 'any-of']],
    ['k1=0&k2=on', ['always', 'any-of']],
    ['k1=false&k2=0', ['always']],
    // several extensions at once, ordered by name (all order 0)
    ['cache=1&mode=fast&k1=1&level=b&flag=false', ['always', 'any-of', 'cache', 'mode', 'off', 'triple']],
  ])('t://h/svc?%s activates %j', (query, expected) => {
    expect(activated(loader(), query)).toEqual(expected);
  });

  it('applies value conditions together with the group', () => {
    const l = loaderWith([
      ['p-cache', undefined, { group: 'provider', value: 'cache' }],
      ['c-cache', undefined, { group: 'consumer', value: 'cache' }],
    ]);
    expect(activated(l, 'cache=lru', 'provider')).toEqual(['p-cache']);
    expect(activated(l, '', 'provider')).toEqual([]);
    expect(activated(l, 'cache=lru')).toEqual(['c-cache', 'p-cache']);
  });
});

describe('names list from the URL key', () => {
  const loader = () =>
    loaderWith([
      ['auto1', Auto1],
      ['auto2', undefined, { group: ['provider'], order: 20 }],
      ['consumer-only', undefined, { group: ['consumer'], order: 0 }],
      ['valued', undefined, { group: ['provider'], value: ['valued'], order: 5 }],
      ['explicit1', undefined],
      ['explicit2', undefined],
    ]);

  it.each<[string, string | undefined, string[]]>([
    ['', 'provider', ['auto1', 'auto2']],
    ['service.filter=', 'provider', ['auto1', 'auto2']],
    ['other.filter=explicit1', 'provider', ['auto1', 'auto2']],
    // explicit names without @Activate are included; without `default` they are merged with the automatic
    // ones, sorted (order, then name) and deduplicated
    ['service.filter=explicit1', 'provider', ['explicit1', 'auto1', 'auto2']],
    ['service.filter=explicit2,explicit1', 'provider', ['explicit1', 'explicit2', 'auto1', 'auto2']],
    ['service.filter=auto2,explicit1', 'provider', ['explicit1', 'auto1', 'auto2']],
    ['service.filter=explicit1,explicit1', 'provider', ['explicit1', 'auto1', 'auto2']],
    // `default` marks where the automatic ones go; the rest follows the list, duplicates kept
    ['service.filter=explicit1,default', 'provider', ['explicit1', 'auto1', 'auto2']],
    ['service.filter=default,explicit1', 'provider', ['auto1', 'auto2', 'explicit1']],
    ['service.filter=explicit2,default,explicit1', 'provider', ['explicit2', 'auto1', 'auto2', 'explicit1']],
    ['service.filter=explicit1,default,explicit1', 'provider', ['explicit1', 'auto1', 'auto2', 'explicit1']],
    ['service.filter=auto2,default', 'provider', ['auto2', 'auto1']],
    ['service.filter=default,auto1', 'provider', ['auto2', 'auto1']],
    ['service.filter=default,default', 'provider', ['auto1', 'auto2', 'auto1', 'auto2']],
    ['service.filter=DEFAULT', 'provider', ['auto1', 'auto2']],
    // -name removes an automatic or an explicit name; -default removes only the automatic ones
    ['service.filter=-auto1', 'provider', ['auto2']],
    ['service.filter=-auto1,default', 'provider', ['auto2']],
    ['service.filter=default,-auto2', 'provider', ['auto1']],
    ['service.filter=auto1,-auto1', 'provider', ['auto2']],
    ['service.filter=explicit1,-explicit1', 'provider', ['auto1', 'auto2']],
    ['service.filter=explicit1,default,-explicit1', 'provider', ['auto1', 'auto2']],
    ['service.filter=-explicit1', 'provider', ['auto1', 'auto2']],
    ['service.filter=-default', 'provider', []],
    ['service.filter=-default,auto2', 'provider', ['auto2']],
    ['service.filter=explicit1,-default', 'provider', ['explicit1']],
    ['service.filter=-default,explicit2,explicit1', 'provider', ['explicit1', 'explicit2']],
    ['service.filter=explicit2,-default,default,explicit1', 'provider', ['explicit2', 'explicit1']],
    // explicit names skip the group and value checks
    ['service.filter=consumer-only', 'provider', ['consumer-only', 'auto1', 'auto2']],
    ['service.filter=valued', 'provider', ['valued', 'auto1', 'auto2']],
    ['service.filter=explicit1', 'consumer', ['consumer-only', 'explicit1']],
    ['valued=on', 'provider', ['valued', 'auto1', 'auto2']],
    ['service.filter=valued&valued=on', 'provider', ['valued', 'auto1', 'auto2']],
    ['', undefined, ['consumer-only', 'auto1', 'auto2']],
    // unknown explicit names are skipped silently (3.x)
    ['service.filter=nope,explicit1', 'provider', ['explicit1', 'auto1', 'auto2']],
    ['service.filter=nope,default', 'provider', ['auto1', 'auto2']],
    ['service.filter=-nope', 'provider', ['auto1', 'auto2']],
    // the comma pattern: blanks around commas, runs of commas, a leading comma
    ['service.filter=explicit2%20,,,%20default', 'provider', ['explicit2', 'auto1', 'auto2']],
    ['service.filter= explicit2 , default ', 'provider', ['explicit2', 'auto1', 'auto2']],
    ['service.filter=,explicit1', 'provider', ['explicit1', 'auto1', 'auto2']],
    ['service.filter=explicit1,,,default,,', 'provider', ['explicit1', 'auto1', 'auto2']],
  ])('t://h/svc?%s in group %j gives %j', (query, group, expected) => {
    expect(activated(loader(), query, group)).toEqual(expected);
  });

  it.each<[readonly string[], string[]]>([
    [['explicit2', 'default', 'explicit1'], ['explicit2', 'auto1', 'auto2', 'explicit1']],
    [[' explicit1 ', ' default '], ['explicit1', 'auto1', 'auto2']],
    [['explicit2', 'explicit1'], ['explicit1', 'explicit2', 'auto1', 'auto2']],
    [[], ['auto1', 'auto2']],
    [['-default'], []],
    [['-auto2', 'explicit1'], ['explicit1', 'auto1']],
  ])('a values array %j is used instead of a key, and gives %j', (values, expected) => {
    const l = loader();
    // the URL's own list is ignored when values are passed
    const url = URL.parse('t://h/svc?service.filter=-default');
    expect(namesOf(l, l.getActivateExtensions(url, values, 'provider'))).toEqual(expected);
  });

  it('without key or values only automatic activation applies', () => {
    const l = loader();
    expect(namesOf(l, l.getActivateExtensions(URL.parse('t://h/svc?service.filter=explicit1'), undefined, 'provider'))).toEqual([
      'auto1',
      'auto2',
    ]);
  });

  it('returns the same singleton instances as getExtension', () => {
    const l = loader();
    const list = l.getActivateExtensions(URL.parse('t://h/svc?service.filter=explicit1'), 'service.filter', 'provider');
    expect(list[0]).toBe(l.getExtension('explicit1'));
    expect(list[1]).toBe(l.getExtension('auto1'));
    expect(list[0]).toBeInstanceOf(Thing);
  });
});

describe('ordering', () => {
  it('sorts ascending by order, then by extension name', () => {
    const l = loaderWith([
      ['b', undefined, { order: 0 }],
      ['d', undefined, { order: 5 }],
      ['a', undefined, { order: 0 }],
      ['c', undefined, { order: -1 }],
      ['e', undefined, { order: -1.5 }],
      ['f', undefined, { order: Number.MAX_SAFE_INTEGER }],
      ['g', undefined, { order: -Number.MAX_SAFE_INTEGER }],
    ]);
    expect(activated(l, '')).toEqual(['g', 'e', 'c', 'a', 'b', 'd', 'f']);
  });

  it('breaks order ties by extension name, not by class simple name (Weft difference: Dubbo compares getSimpleName())', () => {
    class Zebra extends Thing {
      kind(): string {
        return 'zebra';
      }
    }
    class Aardvark extends Thing {
      kind(): string {
        return 'aardvark';
      }
    }
    const l = loaderWith([
      ['zulu', Aardvark, {}],
      ['alpha', Zebra, {}],
    ]);
    expect(activated(l, '')).toEqual(['alpha', 'zulu']);
  });

  it('does not depend on registration order', () => {
    const specs: Array<readonly [string, undefined, ActivateOptions]> = [
      ['m', undefined, { order: 1 }],
      ['k', undefined, { order: 1 }],
      ['x', undefined, { order: 0, before: ['k'] }],
      ['z', undefined, { order: -1, after: ['m'] }],
    ];
    const forward = activated(loaderWith(specs), '');
    const backward = activated(loaderWith([...specs].reverse()), '');
    expect(forward).toEqual(['x', 'k', 'm', 'z']);
    expect(backward).toEqual(forward);
  });

  it('treats before as a real constraint (Weft difference: Dubbo\'s comparator is not a total order)', () => {
    const l = loaderWith([
      ['a', undefined, { order: 0 }],
      ['b', undefined, { order: 5 }],
      ['x', undefined, { order: 10, before: ['a'] }],
    ]);
    expect(activated(l, '')).toEqual(['b', 'x', 'a']);
  });

  it('treats after as a real constraint', () => {
    const l = loaderWith([
      ['m', undefined, { order: 0 }],
      ['y', undefined, { order: -5, after: ['z'] }],
      ['z', undefined, { order: 5 }],
    ]);
    expect(activated(l, '')).toEqual(['m', 'z', 'y']);
  });

  it('follows a chain of constraints against name order', () => {
    const l = loaderWith([
      ['a', undefined, { after: ['b'] }],
      ['b', undefined, { after: ['c'] }],
      ['c', undefined, { after: ['d'] }],
      ['d', undefined, {}],
      ['e', undefined, {}],
    ]);
    expect(activated(l, '')).toEqual(['d', 'c', 'b', 'a', 'e']);
  });

  it('accepts the same constraint stated from both sides', () => {
    const l = loaderWith([
      ['a', undefined, { after: ['b'] }],
      ['b', undefined, { before: ['a'] }],
    ]);
    expect(activated(l, '')).toEqual(['b', 'a']);
  });

  it('ignores a constraint naming an absent, an inactive or the same extension', () => {
    const l = loaderWith([
      ['a', undefined, { order: 2, before: ['ghost', 'inactive', 'a'] }],
      ['b', undefined, { order: 1, after: ['ghost'] }],
      ['inactive', undefined, { order: 0, value: 'never-set', after: ['a'] }],
    ]);
    expect(activated(l, '')).toEqual(['b', 'a']);
    expect(activated(l, 'never-set=1')).toEqual(['b', 'a', 'inactive']);
  });

  it('applies constraints of automatic extensions to explicitly listed ones when there is no default', () => {
    const l = loaderWith([
      ['auto', undefined, { order: 0, after: ['listed'] }],
      ['listed', undefined],
      ['aa', undefined],
    ]);
    expect(activated(l, 'service.filter=listed,aa')).toEqual(['aa', 'listed', 'auto']);
  });

  it('places explicit names by list position around default, whatever the constraints', () => {
    const l = loaderWith([
      ['auto', undefined, { order: 0, after: ['listed'] }],
      ['listed', undefined],
    ]);
    expect(activated(l, 'service.filter=default,listed')).toEqual(['auto', 'listed']);
  });

  it('orders the expansion of default with its constraints', () => {
    const l = loaderWith([
      ['a', undefined, { after: ['b'] }],
      ['b', undefined, {}],
      ['listed', undefined],
    ]);
    expect(activated(l, 'service.filter=listed,default')).toEqual(['listed', 'b', 'a']);
  });

  it('reports a before/after cycle as ERR_SPI_CYCLE naming the cycle and its constraints', () => {
    const l = loaderWith([
      ['a', undefined, { before: ['b'] }],
      ['b', undefined, { before: ['a'] }],
      ['c', undefined, {}],
    ]);
    const error = thrown(() => l.getActivateExtensions(URL.parse('t://h/svc'), 'service.filter'), ExtensionErrorCode.CYCLE);
    expect(error.message).toContain('test.act.Thing');
    expect(error.message).toMatch(/\ba: before b\b/);
    expect(error.message).toMatch(/\bb: before a\b/);
    expect(error.message).toMatch(/\ba → b → a\b/);
    expect(error.message).not.toMatch(/\bc\b/);
  });

  it('names only the members of a longer cycle, not the extensions stuck behind it', () => {
    const l = loaderWith([
      ['a', undefined, { after: ['c'] }],
      ['b', undefined, { after: ['a'] }],
      ['c', undefined, { after: ['b'] }],
      ['downstream', undefined, { after: ['a'] }],
      ['free', undefined, {}],
    ]);
    const error = thrown(() => activated(l, ''), ExtensionErrorCode.CYCLE);
    expect(error.message).toContain('a → b → c → a');
    expect(error.message).toContain('b: after a');
    expect(error.message).toContain('c: after b');
    expect(error.message).toContain('a: after c');
    expect(error.message).not.toContain('downstream');
    expect(error.message).not.toContain('free');
  });

  it('raises no cycle error when a member of the cycle is not activated', () => {
    const l = loaderWith([
      ['a', undefined, { before: ['b'] }],
      ['b', undefined, { before: ['a'], value: 'b-on' }],
    ]);
    expect(activated(l, '')).toEqual(['a']);
    thrown(() => activated(l, 'b-on=1'), ExtensionErrorCode.CYCLE);
  });
});

describe('result and cache', () => {
  const loader = () =>
    loaderWith([
      ['p', undefined, { group: 'provider', order: 1 }],
      ['c', undefined, { group: 'consumer', order: 1 }],
      ['listed', undefined],
    ]);

  it('returns a frozen array', () => {
    const l = loader();
    const list = l.getActivateExtensions(URL.parse('t://h/svc'), 'service.filter', 'provider');
    expect(Object.isFrozen(list)).toBe(true);
    expect(() => (list as Thing[]).push(l.getExtension('c'))).toThrow(TypeError);
  });

  it('returns the identical array for the same URL object, key and group, without reading the URL again', () => {
    const l = loader();
    const url = URL.parse('t://h/svc?service.filter=listed');
    const first = l.getActivateExtensions(url, 'service.filter', 'provider');
    const getParameter = vi.spyOn(url, 'getParameter');
    const getAnyMethodParameter = vi.spyOn(url, 'getAnyMethodParameter');
    expect(l.getActivateExtensions(url, 'service.filter', 'provider')).toBe(first);
    expect(getParameter).not.toHaveBeenCalled();
    expect(getAnyMethodParameter).not.toHaveBeenCalled();
    expect(namesOf(l, first)).toEqual(['listed', 'p']);
  });

  it('caches a values array by content', () => {
    const l = loader();
    const url = URL.parse('t://h/svc');
    const first = l.getActivateExtensions(url, ['listed'], 'provider');
    expect(l.getActivateExtensions(url, ['listed'], 'provider')).toBe(first);
    expect(namesOf(l, l.getActivateExtensions(url, ['-p'], 'provider'))).toEqual([]);
  });

  it('does not confuse a values array with an element containing a comma with a longer array', () => {
    const l = loader();
    const url = URL.parse('t://h/svc');
    expect(namesOf(l, l.getActivateExtensions(url, ['listed', 'c'], 'provider'))).toEqual(['listed', 'c', 'p']);
    // "listed,c" is one (unknown) name: nothing explicit is activated
    expect(namesOf(l, l.getActivateExtensions(url, ['listed,c'], 'provider'))).toEqual(['p']);
  });

  it('computes anew for an equal but different URL object', () => {
    const l = loader();
    const first = l.getActivateExtensions(URL.parse('t://h/svc'), 'service.filter', 'provider');
    const second = l.getActivateExtensions(URL.parse('t://h/svc'), 'service.filter', 'provider');
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
  });

  it('caches different groups and keys separately', () => {
    const l = loader();
    const url = URL.parse('t://h/svc?service.filter=listed&other=-default');
    const provider = l.getActivateExtensions(url, 'service.filter', 'provider');
    const consumer = l.getActivateExtensions(url, 'service.filter', 'consumer');
    const all = l.getActivateExtensions(url, 'service.filter');
    const other = l.getActivateExtensions(url, 'other', 'provider');
    expect(namesOf(l, provider)).toEqual(['listed', 'p']);
    expect(namesOf(l, consumer)).toEqual(['listed', 'c']);
    expect(namesOf(l, all)).toEqual(['listed', 'c', 'p']);
    expect(namesOf(l, other)).toEqual([]);
    expect(l.getActivateExtensions(url, 'service.filter', 'provider')).toBe(provider);
    expect(l.getActivateExtensions(url, 'service.filter', 'consumer')).toBe(consumer);
    expect(l.getActivateExtensions(url, 'service.filter')).toBe(all);
    expect(l.getActivateExtensions(url, 'other', 'provider')).toBe(other);
  });

  it('is invalidated by addExtension: the same URL then gives a new array with the new extension', () => {
    const l = loader();
    const url = URL.parse('t://h/svc');
    const before = l.getActivateExtensions(url, 'service.filter', 'provider');
    expect(namesOf(l, before)).toEqual(['p']);
    l.addExtension('early', makeThing(), { activate: { group: 'provider', order: -1 } });
    const after = l.getActivateExtensions(url, 'service.filter', 'provider');
    expect(after).not.toBe(before);
    expect(namesOf(l, after)).toEqual(['early', 'p']);
    expect(l.getActivateExtensions(url, 'service.filter', 'provider')).toBe(after);
  });

  it('is invalidated by replaceExtension', () => {
    const l = loader();
    const url = URL.parse('t://h/svc');
    const before = l.getActivateExtensions(url, 'service.filter', 'provider');
    l.replaceExtension('c', makeThing(), { activate: { group: 'provider', order: 0 } });
    const after = l.getActivateExtensions(url, 'service.filter', 'provider');
    expect(after).not.toBe(before);
    expect(namesOf(l, after)).toEqual(['c', 'p']);
  });

  it('activates extensions added after the first lookup (Weft difference: Dubbo caches @Activate classes once)', () => {
    const l = loader();
    const url = URL.parse('t://h/svc?late=1');
    expect(namesOf(l, l.getActivateExtensions(url, 'service.filter'))).toEqual(['c', 'p']);
    l.addExtension('late', makeThing(), { activate: { value: 'late', order: 2 } });
    expect(namesOf(l, l.getActivateExtensions(url, 'service.filter'))).toEqual(['c', 'p', 'late']);
  });

  it('throws ERR_SPI_DESTROYED after its application is destroyed, even for a cached URL', async () => {
    const app = framework.newApplication(`t${++appCounter}`);
    const l = app.getExtensionLoader(Thing).addExtension('p', makeThing(), { activate: { order: 1 } });
    const url = URL.parse('t://h/svc');
    expect(l.getActivateExtensions(url, 'service.filter')).toHaveLength(1);
    await app.destroy();
    thrown(() => l.getActivateExtensions(url, 'service.filter'), ExtensionErrorCode.DESTROYED);
  });
});
