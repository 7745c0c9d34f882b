// Wrappers (spec §1.4, 3.x semantics): applied around every matching extension, smallest order outermost;
// Weft breaks order ties by wrapper name (spec §8 item 5: Dubbo's WrapperComparator leaves them unspecified).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionError, ExtensionErrorCode, FrameworkModel, type ExtensionLoader } from '@weft/core';
import { InjectExtension, InjectWrapped, SPI, Wrapper, type WrapperOptions } from '@weft/core/spi';

@SPI({ id: 'test.wrap.Greeter' })
abstract class Greeter {
  abstract greet(who: string): string;
}

let helloCreated = 0;

class Hello extends Greeter {
  constructor() {
    super();
    helloCreated++;
  }
  greet(who: string): string {
    return `hello ${who}`;
  }
}

class Hi extends Greeter {
  greet(who: string): string {
    return `hi ${who}`;
  }
}

@Wrapper({ order: 1 })
class Brackets extends Greeter {
  constructor(@InjectWrapped() readonly inner: Greeter) {
    super();
  }
  greet(who: string): string {
    return `[${this.inner.greet(who)}]`;
  }
}

@Wrapper({ order: 2 })
class Braces extends Greeter {
  constructor(@InjectWrapped() readonly inner: Greeter) {
    super();
  }
  greet(who: string): string {
    return `{${this.inner.greet(who)}}`;
  }
}

/** A wrapper class (without decorator) that tags the result with `label`. */
function tagWrapper(label: string): new (inner: Greeter) => Greeter & { readonly inner: Greeter } {
  class TagWrapper extends Greeter {
    constructor(@InjectWrapped() readonly inner: Greeter) {
      super();
    }
    greet(who: string): string {
      return `${label}(${this.inner.greet(who)})`;
    }
  }
  return TagWrapper;
}

class WrappedByMistake extends Greeter {
  constructor(@InjectWrapped() readonly inner: Greeter) {
    super();
  }
  greet(who: string): string {
    return this.inner.greet(who);
  }
}

@Wrapper()
class ExplodingWrapper extends Greeter {
  constructor(@InjectWrapped() readonly inner: Greeter) {
    super();
    throw new Error('wrapper exploded');
  }
  greet(who: string): string {
    return who;
  }
}

@SPI({ id: 'test.wrap.Dependency' })
abstract class Dependency {
  abstract value(): string;
}

class FailingDependency extends Dependency {
  constructor() {
    super();
    throw new RangeError('dependency exploded');
  }
  value(): string {
    return 'never';
  }
}

@Wrapper()
class NeedyWrapper extends Greeter {
  constructor(
    @InjectWrapped() readonly inner: Greeter,
    @InjectExtension(Dependency, 'failing') readonly dependency: Dependency,
  ) {
    super();
  }
  greet(who: string): string {
    return this.inner.greet(who);
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

/** A loader of Greeter in a fresh application, with `hello` and `hi`. */
function greeters(): ExtensionLoader<Greeter> {
  return framework
    .newApplication(`w${++appCounter}`)
    .getExtensionLoader(Greeter)
    .addExtension('hello', Hello)
    .addExtension('hi', Hi);
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

/** The chain from the outermost object inwards, by constructor name. */
function chain(greeter: Greeter): string[] {
  const out: string[] = [];
  for (let g: Greeter | undefined = greeter; g !== undefined; g = (g as { inner?: Greeter }).inner) out.push(g.constructor.name);
  return out;
}

describe('order', () => {
  it('applies wrappers around every extension, the smallest order outermost', () => {
    const loader = greeters().addExtension('braces', Braces).addExtension('brackets', Brackets);
    expect(loader.getExtension('hello').greet('x')).toBe('[{hello x}]');
    expect(loader.getExtension('hi').greet('y')).toBe('[{hi y}]');
    expect(chain(loader.getExtension('hello'))).toEqual(['Brackets', 'Braces', 'Hello']);
  });

  it('orders by order whatever the registration order', () => {
    const loader = greeters().addExtension('brackets', Brackets).addExtension('braces', Braces);
    expect(loader.getExtension('hello').greet('x')).toBe('[{hello x}]');
  });

  it('handles negative and large orders', () => {
    const loader = greeters()
      .addExtension('w-late', tagWrapper('late'), { wrapper: { order: 1000 } })
      .addExtension('w-first', tagWrapper('first'), { wrapper: { order: -1000 } })
      .addExtension('w-mid', tagWrapper('mid'), { wrapper: true });
    expect(loader.getExtension('hi').greet('x')).toBe('first(mid(late(hi x)))');
  });

  it.each<[string[], string]>([
    [['w-b', 'w-a'], 'A(B(hello x))'],
    [['w-a', 'w-b'], 'A(B(hello x))'],
    [['w-c', 'w-a', 'w-b'], 'A(B(C(hello x)))'],
  ])(
    'breaks order ties by wrapper name, the smallest name outermost (Weft difference: Dubbo leaves ties unspecified): registered %j',
    (names, expected) => {
      const loader = greeters();
      for (const name of names) loader.addExtension(name, tagWrapper(name.slice(2).toUpperCase()), { wrapper: { order: 5 } });
      expect(loader.getExtension('hello').greet('x')).toBe(expected);
    },
  );

  it('ties by wrapper name, not by class name', () => {
    @Wrapper()
    class Zzz extends Greeter {
      constructor(@InjectWrapped() readonly inner: Greeter) {
        super();
      }
      greet(who: string): string {
        return `Z(${this.inner.greet(who)})`;
      }
    }
    @Wrapper()
    class Aaa extends Greeter {
      constructor(@InjectWrapped() readonly inner: Greeter) {
        super();
      }
      greet(who: string): string {
        return `A(${this.inner.greet(who)})`;
      }
    }
    const loader = greeters().addExtension('b-wrapper', Aaa).addExtension('a-wrapper', Zzz);
    expect(loader.getExtension('hello').greet('x')).toBe('Z(A(hello x))');
  });
});

describe('matches and mismatches (3.x)', () => {
  it.each<[string, WrapperOptions, { hello: boolean; hi: boolean }]>([
    ['empty matches wrap every name (3.x; 2.7 wrapped nothing)', {}, { hello: true, hi: true }],
    ['matches restricts to the listed names', { matches: ['hello'] }, { hello: true, hi: false }],
    ['matches may list several names', { matches: ['hello', 'hi'] }, { hello: true, hi: true }],
    ['matches naming nothing registered wraps nothing', { matches: ['other'] }, { hello: false, hi: false }],
    ['mismatches excludes the listed names', { mismatches: ['hello'] }, { hello: false, hi: true }],
    ['mismatches wins over matches', { matches: ['hello', 'hi'], mismatches: ['hi'] }, { hello: true, hi: false }],
  ])('%s', (_what, options, expected) => {
    @Wrapper(options)
    class Tag extends Greeter {
      constructor(@InjectWrapped() readonly inner: Greeter) {
        super();
      }
      greet(who: string): string {
        return `T(${this.inner.greet(who)})`;
      }
    }
    const loader = greeters().addExtension('tag', Tag);
    expect(loader.getExtension('hello').greet('x')).toBe(expected.hello ? 'T(hello x)' : 'hello x');
    expect(loader.getExtension('hi').greet('x')).toBe(expected.hi ? 'T(hi x)' : 'hi x');
  });

  it('takes matches and mismatches from addExtension options', () => {
    const loader = greeters()
      .addExtension('only-hi', tagWrapper('H'), { wrapper: { matches: ['hi'] } })
      .addExtension('not-hi', tagWrapper('N'), { wrapper: { mismatches: ['hi'] } });
    expect(loader.getExtension('hello').greet('x')).toBe('N(hello x)');
    expect(loader.getExtension('hi').greet('x')).toBe('H(hi x)');
  });

  it('matches the requested name, so an alias of the same class is matched separately', () => {
    const loader = greeters()
      .addExtension('hello-alias', Hello)
      .addExtension('only-hello', tagWrapper('O'), { wrapper: { matches: ['hello'] } });
    expect(loader.getExtension('hello').greet('x')).toBe('O(hello x)');
    expect(loader.getExtension('hello-alias').greet('x')).toBe('hello x');
  });
});

describe('instances', () => {
  it('getExtension(name, false) returns the bare instance', () => {
    const loader = greeters().addExtension('brackets', Brackets);
    const bare = loader.getExtension('hello', false);
    expect(bare).toBeInstanceOf(Hello);
    expect(bare.greet('x')).toBe('hello x');
    const wrapped = loader.getExtension('hello');
    expect(wrapped).toBeInstanceOf(Brackets);
    expect((wrapped as Brackets).inner).toBe(bare);
  });

  it('caches bare and wrapped instances separately', () => {
    const loader = greeters().addExtension('brackets', Brackets);
    const wrapped = loader.getExtension('hello');
    const bare = loader.getExtension('hello', false);
    expect(loader.getExtension('hello')).toBe(wrapped);
    expect(loader.getExtension('hello', true)).toBe(wrapped);
    expect(loader.getExtension('hello', false)).toBe(bare);
    expect(bare).not.toBe(wrapped);
  });

  it('creates the bare instance once whichever form is asked first', () => {
    const loader = greeters().addExtension('brackets', Brackets);
    const before = helloCreated;
    const bare = loader.getExtension('hello', false);
    const wrapped = loader.getExtension('hello') as Brackets;
    expect(wrapped.inner).toBe(bare);
    expect(helloCreated - before).toBe(1);
  });

  it('shares the raw instance between two names mapped to one class', () => {
    const loader = greeters().addExtension('hello-alias', Hello).addExtension('brackets', Brackets);
    const before = helloCreated;
    const wrapped = loader.getExtension('hello') as Brackets;
    const aliasWrapped = loader.getExtension('hello-alias') as Brackets;
    expect(aliasWrapped).not.toBe(wrapped);
    expect(aliasWrapped.inner).toBe(wrapped.inner);
    expect(loader.getExtension('hello-alias', false)).toBe(loader.getExtension('hello', false));
    expect(loader.getExtension('hello', false)).toBe(wrapped.inner);
    expect(helloCreated - before).toBe(1);
    expect(loader.getExtensionName(Hello)).toBe('hello');
  });

  it('returns the bare instance when there are no wrappers', () => {
    const loader = greeters();
    expect(loader.getExtension('hello')).toBe(loader.getExtension('hello', false));
  });

  it('applies a wrapper added later to extensions created after it; the raw instance is kept', () => {
    const loader = greeters().addExtension('brackets', Brackets);
    const first = loader.getExtension('hello') as Brackets;
    expect(first.greet('x')).toBe('[hello x]');
    loader.addExtension('braces', Braces);
    const second = loader.getExtension('hello');
    expect(second).not.toBe(first);
    expect(second.greet('x')).toBe('[{hello x}]');
    expect(chain(second).at(-1)).toBe('Hello');
    expect(((second as Brackets).inner as Braces).inner).toBe(first.inner);
  });
});

describe('wrappers are not named extensions', () => {
  it('hasExtension, getSupportedExtensions and getExtension ignore wrapper names', () => {
    const loader = greeters()
      .addExtension('brackets', Brackets)
      .addExtension('tagger', tagWrapper('T'), { wrapper: true });
    expect(loader.hasExtension('brackets')).toBe(false);
    expect(loader.hasExtension('tagger')).toBe(false);
    expect(loader.hasExtension('hello')).toBe(true);
    expect(loader.getSupportedExtensions()).toEqual(['hello', 'hi']);
    expect(loader.getExtensionName(Brackets)).toBeUndefined();
    const error = thrown(() => loader.getExtension('brackets'), ExtensionErrorCode.NOT_FOUND);
    expect(error.message).toContain('Available: hello, hi.');
  });

  it('a wrapper name cannot be reused for an extension', () => {
    const loader = greeters().addExtension('brackets', Brackets);
    thrown(() => loader.addExtension('brackets', Hi), ExtensionErrorCode.DUPLICATE_NAME);
  });
});

describe('errors', () => {
  it('a class using @InjectWrapped registered as a normal extension → ERR_SPI_INSTANTIATION_FAILED with a clear message', () => {
    const loader = greeters().addExtension('mistake', WrappedByMistake);
    const error = thrown(() => loader.getExtension('mistake'), ExtensionErrorCode.INSTANTIATION_FAILED);
    expect(error.message).toContain('extension "mistake" of test.wrap.Greeter');
    expect(error.message).toContain('WrappedByMistake');
    expect(error.message).toContain('@InjectWrapped');
    expect(error.message).toContain('not used as a wrapper');
    expect(error.message).toMatch(/@Wrapper\(\)|"wrapper": true/);
    thrown(() => loader.getExtension('mistake', false), ExtensionErrorCode.INSTANTIATION_FAILED);
  });

  it('a wrapper constructor throwing → the message composes wrapper, extension and root cause', () => {
    const loader = greeters().addExtension('exploding', ExplodingWrapper);
    const error = thrown(() => loader.getExtension('hello'), ExtensionErrorCode.INSTANTIATION_FAILED);
    expect(error.message).toMatch(
      /wrapper "exploding" \(class ExplodingWrapper[^)]*\) around extension "hello" of test\.wrap\.Greeter \(class Hello[^)]*\).*Error: wrapper exploded/s,
    );
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as Error).message).toBe('wrapper exploded');
    // the bare extension is still usable, and nothing broken was cached
    expect(loader.getExtension('hello', false).greet('x')).toBe('hello x');
    thrown(() => loader.getExtension('hello'), ExtensionErrorCode.INSTANTIATION_FAILED);
  });

  it('a wrapper whose dependency fails → wrapper … around extension … → dependency → root cause', () => {
    const app = framework.newApplication(`w${++appCounter}`);
    app.getExtensionLoader(Dependency).addExtension('failing', FailingDependency);
    const loader = app.getExtensionLoader(Greeter).addExtension('hello', Hello).addExtension('needy', NeedyWrapper);
    const error = thrown(() => loader.getExtension('hello'), ExtensionErrorCode.INSTANTIATION_FAILED);
    expect(error.message).toMatch(
      /wrapper "needy" \(class NeedyWrapper[^)]*\) around extension "hello" of test\.wrap\.Greeter.* → .*extension "failing" of test\.wrap\.Dependency.*RangeError: dependency exploded/s,
    );
  });
});
