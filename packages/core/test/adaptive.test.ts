// Adaptive extensions (spec §1.8): key resolution from the URL, URL sources, failures, hand-written adaptive
// classes. Weft differences (spec §8 item 1): keys chain the same way with and without an invocation, and there
// is no literal "null" fallback — no name is ERR_SPI_NO_ADAPTIVE_NAME.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExtensionError, ExtensionErrorCode, FrameworkModel, Invocation, URL, type ExtensionLoader } from '@weft/core';
import { Adaptive, getSpiMetadata, InjectWrapped, SPI, Wrapper, type AbstractClass } from '@weft/core/spi';

@SPI({ id: 'test.adaptive.LoadBalance', default: 'random', adaptive: { select: [] } })
abstract class LoadBalance {
  abstract select(url: URL, what: string): string;
  /** A concrete method not declared adaptive. */
  describe(): string {
    return 'a load balance';
  }
}

class RandomLoadBalance extends LoadBalance {
  select(_url: URL, what: string): string {
    return `random:${what}`;
  }
}

class RoundRobinLoadBalance extends LoadBalance {
  select(_url: URL, what: string): string {
    return `round-robin:${what}`;
  }
}

@SPI({ id: 'test.adaptive.HasAdaptiveExt', adaptive: { echo: [] } })
abstract class HasAdaptiveExt {
  abstract echo(url: URL): string;
}

class Impl1 extends HasAdaptiveExt {
  echo(): string {
    return 'impl1';
  }
}

@SPI({ id: 'test.adaptive.Greeter', default: 'plain', adaptive: { greet: ['first', 'second'] } })
abstract class Greeter {
  abstract greet(...args: unknown[]): string;
}

/** A Greeter extension class answering its own name. */
function greeter(name: string): new () => Greeter {
  return class extends Greeter {
    greet(): string {
      return name;
    }
  };
}

@SPI({ id: 'test.adaptive.Protocol', default: 'dubbo', adaptive: { export: ['protocol'], refer: ['k', 'protocol'] } })
abstract class Protocol {
  abstract export(url: URL): string;
  abstract refer(url: URL, invocation?: Invocation): string;
}

function protocol(name: string): new () => Protocol {
  return class extends Protocol {
    export(): string {
      return name;
    }
    refer(): string {
      return name;
    }
  };
}

@SPI({ id: 'test.adaptive.Codec', adaptive: { encode: ['codec', 'serialization'] } })
abstract class Codec {
  abstract encode(...args: unknown[]): string;
}

function codec(name: string): new () => Codec {
  return class extends Codec {
    encode(): string {
      return name;
    }
  };
}

@SPI({ id: 'test.adaptive.Router', default: 'none', adaptive: { route: ['router'] } })
abstract class Router {
  abstract route(...args: unknown[]): unknown;
}

/** A Router extension answering its name and the arguments it received. */
function router(name: string): new () => Router {
  return class extends Router {
    route(...args: unknown[]): unknown {
      return { name, args, self: this };
    }
  };
}

@Adaptive()
class ManualRouter extends Router {
  route(): unknown {
    return 'manual';
  }
}

class OptionAdaptiveRouter extends Router {
  route(): unknown {
    return 'by-option';
  }
}

@SPI({ id: 'test.adaptive.Plain' })
abstract class Plain {
  abstract run(url: URL): string;
}

class PlainImpl extends Plain {
  run(): string {
    return 'plain';
  }
}

@Adaptive()
class ManualPlain extends Plain {
  run(): string {
    return 'manual plain';
  }
}

@SPI({ id: 'test.adaptive.Concrete', default: 'base' })
class Concrete {
  @Adaptive(['k'])
  run(_url: URL): string {
    return 'concrete';
  }

  @Adaptive()
  other(_url: URL): string {
    return 'concrete other';
  }

  helper(): string {
    return 'helper';
  }
}

function concrete(name: string): new () => Concrete {
  return class extends Concrete {
    override run(): string {
      return `${name}.run`;
    }
    override other(): string {
      return `${name}.other`;
    }
  };
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

function newApp() {
  return framework.newApplication(`a${++appCounter}`);
}

function loaderOf<T>(spi: AbstractClass<T>, extensions: Record<string, new () => T>): ExtensionLoader<T> {
  const loader = newApp().getExtensionLoader(spi);
  for (const [name, cls] of Object.entries(extensions)) loader.addExtension(name, cls);
  return loader;
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

const url = (query = '') => URL.parse(`t://h:1/svc${query === '' ? '' : `?${query}`}`);

describe('keys', () => {
  it.each([
    ['LoadBalance', 'load.balance'],
    ['HasAdaptiveExt', 'has.adaptive.ext'],
    ['YyyInvokerWrapper', 'yyy.invoker.wrapper'],
    ['Protocol', 'protocol'],
    ['Ext2', 'ext2'],
  ])('@SPI derives the key of %s as %s', (className, key) => {
    const cls = { [className]: class {} }[className] as AbstractClass;
    expect(cls.name).toBe(className);
    SPI({ id: `test.adaptive.derived.${className}`, adaptive: { m: [] } })(cls);
    const meta = getSpiMetadata(cls);
    expect(meta?.defaultAdaptiveKey).toBe(key);
    expect(meta?.adaptiveMethods.get('m')).toEqual([key]);
  });

  it('an empty key list means the key derived from the class name (LoadBalance → load.balance)', () => {
    expect(getSpiMetadata(LoadBalance)?.adaptiveMethods.get('select')).toEqual(['load.balance']);
    const lb = loaderOf(LoadBalance, { random: RandomLoadBalance, 'round-robin': RoundRobinLoadBalance }).getAdaptiveExtension();
    expect(lb.select(url('load.balance=round-robin'), 'x')).toBe('round-robin:x');
    expect(lb.select(url('loadbalance=round-robin'), 'x')).toBe('random:x');
  });

  it('uses the derived key of a multi-word @SPI class name (HasAdaptiveExt → has.adaptive.ext)', () => {
    expect(getSpiMetadata(HasAdaptiveExt)?.adaptiveMethods.get('echo')).toEqual(['has.adaptive.ext']);
    const ext = loaderOf(HasAdaptiveExt, { impl1: Impl1 }).getAdaptiveExtension();
    expect(ext.echo(url('has.adaptive.ext=impl1'))).toBe('impl1');
  });

  it('falls back to the SPI default when the URL does not name an extension', () => {
    const lb = loaderOf(LoadBalance, { random: RandomLoadBalance, 'round-robin': RoundRobinLoadBalance }).getAdaptiveExtension();
    expect(lb.select(url(), 'y')).toBe('random:y');
    expect(lb.select(url('load.balance='), 'y')).toBe('random:y');
  });

  const greeters = () =>
    loaderOf(Greeter, { plain: greeter('plain'), loud: greeter('loud'), soft: greeter('soft') }).getAdaptiveExtension();

  it.each<[string, string]>([
    ['', 'plain'],
    ['first=loud', 'loud'],
    ['second=soft', 'soft'],
    ['first=loud&second=soft', 'loud'],
    ['first=&second=soft', 'soft'],
    ['second=soft&first=loud', 'loud'],
    ['sayHello.first=loud', 'plain'],
  ])('without an invocation, keys [first, second] read in priority order: ?%s → %s', (query, expected) => {
    expect(greeters().greet(url(query))).toBe(expected);
  });

  it.each<[string, string]>([
    ['sayHello.first=loud', 'loud'],
    ['first=soft&sayHello.first=loud', 'loud'],
    ['first=soft', 'soft'],
    ['sayHello.first=&first=soft', 'soft'],
    ['second=soft', 'soft'],
    ['sayHello.second=soft', 'soft'],
    ['first=loud&sayHello.second=soft', 'loud'],
    ['otherMethod.first=loud', 'plain'],
    ['', 'plain'],
  ])(
    'with an invocation of sayHello, method-level keys are read first and keys still chain (Weft difference: Dubbo reads only the first key): ?%s → %s',
    (query, expected) => {
      expect(greeters().greet(url(query), new Invocation({ methodName: 'sayHello' }))).toBe(expected);
      expect(greeters().greet({ getMethodName: () => 'sayHello' }, url(query))).toBe(expected);
    },
  );

  it('key protocol reads the URL protocol, not a parameter, and falls back to the SPI default', () => {
    const p = loaderOf(Protocol, { dubbo: protocol('dubbo'), injvm: protocol('injvm') }).getAdaptiveExtension();
    expect(p.export(URL.parse('injvm://h/svc'))).toBe('injvm');
    expect(p.export(URL.parse('dubbo://h/svc'))).toBe('dubbo');
    expect(p.export(new URL({ host: 'h', path: 'svc' }))).toBe('dubbo');
    expect(p.export(new URL({ host: 'h', parameters: { protocol: 'injvm' } }))).toBe('dubbo');
  });

  it('chains a plain key and protocol in order', () => {
    const p = loaderOf(Protocol, { dubbo: protocol('dubbo'), injvm: protocol('injvm') }).getAdaptiveExtension();
    expect(p.refer(URL.parse('injvm://h/svc?k=dubbo'))).toBe('dubbo');
    expect(p.refer(URL.parse('injvm://h/svc'))).toBe('injvm');
    expect(p.refer(URL.parse('injvm://h/svc?k='))).toBe('injvm');
    expect(p.refer(new URL({ host: 'h' }))).toBe('dubbo');
  });

  it('with an invocation, a plain key is read at method level first, but protocol is always the URL protocol', () => {
    const p = loaderOf(Protocol, { dubbo: protocol('dubbo'), injvm: protocol('injvm') }).getAdaptiveExtension();
    const invocation = new Invocation({ methodName: 'sayHello' });
    expect(p.refer(URL.parse('injvm://h/svc?sayHello.k=dubbo'), invocation)).toBe('dubbo');
    expect(p.refer(URL.parse('injvm://h/svc?sayHello.protocol=dubbo'), invocation)).toBe('injvm');
    expect(p.refer(new URL({ host: 'h', parameters: { 'sayHello.protocol': 'injvm' } }), invocation)).toBe('dubbo');
  });

  it('no key set and no SPI default → ERR_SPI_NO_ADAPTIVE_NAME naming the point, method, keys and URL', () => {
    const c = loaderOf(Codec, { json: codec('json'), hessian2: codec('hessian2') }).getAdaptiveExtension();
    expect(c.encode(url('serialization=json'))).toBe('json');
    const error = thrown(() => c.encode(url('x=1')), ExtensionErrorCode.NO_ADAPTIVE_NAME);
    expect(error.message).toContain('test.adaptive.Codec');
    expect(error.message).toContain('encode');
    expect(error.message).toContain('[codec, serialization]');
    expect(error.message).toContain('t://h:1/svc?x=1');
  });

  it('with an invocation and no name: ERR_SPI_NO_ADAPTIVE_NAME, never the literal name "null" (Weft difference)', () => {
    const c = loaderOf(Codec, { json: codec('json'), null: codec('null') }).getAdaptiveExtension();
    const error = thrown(() => c.encode(url(), new Invocation({ methodName: 'sayHello' })), ExtensionErrorCode.NO_ADAPTIVE_NAME);
    expect(error.message).toContain('test.adaptive.Codec');
  });

  it('an unknown extension name from the URL → ERR_SPI_NOT_FOUND listing the available ones', () => {
    const c = loaderOf(Codec, { json: codec('json'), hessian2: codec('hessian2') }).getAdaptiveExtension();
    const error = thrown(() => c.encode(url('codec=nope')), ExtensionErrorCode.NOT_FOUND);
    expect(error.message).toContain('"nope"');
    expect(error.message).toContain('Available: hessian2, json.');
  });

  it('chooses per call: a different URL switches the extension (the choice is not cached)', () => {
    const lb = loaderOf(LoadBalance, { random: RandomLoadBalance, 'round-robin': RoundRobinLoadBalance }).getAdaptiveExtension();
    const rr = url('load.balance=round-robin');
    const rnd = url('load.balance=random');
    expect(lb.select(rr, '1')).toBe('round-robin:1');
    expect(lb.select(rnd, '2')).toBe('random:2');
    expect(lb.select(rr, '3')).toBe('round-robin:3');
    expect(lb.select(url(), '4')).toBe('random:4');
  });
});

const routers = () => loaderOf(Router, { none: router('none'), a: router('a'), b: router('b') });

describe('URL sources', () => {
  const urlA = url('router=a');
  const urlB = url('router=b');
  type Routed = { name: string; args: unknown[]; self: Router };

  it.each<[string, () => unknown[], string]>([
    ['a URL argument', () => [urlA], 'a'],
    ['a URL argument after others', () => ['x', 42, null, undefined, urlA], 'a'],
    ['the first of two URL arguments', () => [urlA, urlB], 'a'],
    ['getUrl() of an argument', () => [{ getUrl: () => urlA }], 'a'],
    ['the url property of an argument', () => [{ url: urlA }], 'a'],
    ['the first argument carrying a URL', () => [{ getUrl: () => urlA }, { getUrl: () => urlB }], 'a'],
    ['a carrier after one whose url property is not a URL', () => [{ url: 'a' }, { getUrl: () => urlB }], 'b'],
    ['a URL argument over an earlier carrier (as Dubbo: URL parameters first)', () => [{ getUrl: () => urlA }, urlB], 'b'],
    ['a URL argument over an earlier url property', () => [{ url: urlA }, urlB], 'b'],
    ['a URL argument over an invocation', () => [new Invocation({ methodName: 'm' }), urlB], 'b'],
  ])('finds the URL in %s', (_what, args, expected) => {
    const argList = args();
    const routed = routers().getAdaptiveExtension().route(...argList) as Routed;
    expect(routed.name).toBe(expected);
    expect(routed.args).toEqual(argList);
    expect(routed.args[argList.length - 1]).toBe(argList[argList.length - 1]);
  });

  it('does not call getUrl() when a URL argument is present', () => {
    const getUrl = vi.fn(() => 'not a url');
    const routed = routers().getAdaptiveExtension().route({ getUrl }, urlB) as Routed;
    expect(routed.name).toBe('b');
    expect(getUrl).not.toHaveBeenCalled();
  });

  it('delegates with the original arguments to the (wrapped) singleton extension', () => {
    @Wrapper()
    class Tracing extends Router {
      constructor(@InjectWrapped() readonly inner: Router) {
        super();
      }
      route(...args: unknown[]): unknown {
        return { traced: this.inner.route(...args) };
      }
    }
    const loader = routers();
    loader.addExtension('tracing', Tracing);
    const carrier = { getUrl: () => urlA };
    const out = loader.getAdaptiveExtension().route(carrier, 7) as { traced: Routed };
    expect(out.traced.name).toBe('a');
    expect(out.traced.args[0]).toBe(carrier);
    expect(out.traced.args[1]).toBe(7);
    expect(out.traced.self).toBe(loader.getExtension('a', false));
  });

  it.each<[string, () => unknown[]]>([
    ['no argument', () => []],
    ['only primitives, null and undefined', () => ['t://h?router=a', 1, null, undefined]],
    ['only plain objects', () => [{}, { url: 't://h?router=a' }]],
    ['only an invocation', () => [new Invocation({ methodName: 'route' })]],
  ])('no URL (%s) → ERR_SPI_ADAPTIVE_FAILED', (_what, args) => {
    const error = thrown(() => routers().getAdaptiveExtension().route(...args()), ExtensionErrorCode.ADAPTIVE_FAILED);
    expect(error.message).toContain('test.adaptive.Router.route()');
    expect(error.message).toContain('found no URL');
  });

  it.each<[string, unknown, string]>([
    ['a string', 't://h?router=a', 'a non-URL value'],
    ['undefined', undefined, 'undefined'],
    ['null', null, 'a non-URL value'],
  ])('getUrl() returning %s → ERR_SPI_ADAPTIVE_FAILED', (_what, value, described) => {
    const error = thrown(
      () => routers().getAdaptiveExtension().route('x', { getUrl: () => value }),
      ExtensionErrorCode.ADAPTIVE_FAILED,
    );
    expect(error.message).toContain('argument #1 getUrl()');
    expect(error.message).toContain(described);
  });
});

describe('the adaptive instance', () => {
  it('is an instance of the SPI class, created once', () => {
    const loader = loaderOf(LoadBalance, { random: RandomLoadBalance });
    const lb = loader.getAdaptiveExtension();
    expect(lb).toBeInstanceOf(LoadBalance);
    expect(lb).not.toBeInstanceOf(RandomLoadBalance);
    expect(loader.getAdaptiveExtension()).toBe(lb);
  });

  it('throws ERR_SPI_ADAPTIVE_FAILED from a method that is not adaptive', () => {
    const lb = loaderOf(LoadBalance, { random: RandomLoadBalance }).getAdaptiveExtension();
    const error = thrown(() => lb.describe(), ExtensionErrorCode.ADAPTIVE_FAILED);
    expect(error.message).toContain('describe');
    expect(error.message).toContain('test.adaptive.LoadBalance');
  });

  it('an SPI without adaptive methods → ERR_SPI_ADAPTIVE_FAILED, the same error instance on every call', () => {
    const loader = loaderOf(Plain, { impl: PlainImpl });
    const first = thrown(() => loader.getAdaptiveExtension(), ExtensionErrorCode.ADAPTIVE_FAILED);
    expect(first.message).toContain('test.adaptive.Plain');
    let second: unknown;
    try {
      loader.getAdaptiveExtension();
    } catch (error) {
      second = error;
    }
    expect(second).toBe(first);
  });

  it('registering an @Adaptive class after a failure replaces the stored error', () => {
    const loader = loaderOf(Plain, { impl: PlainImpl });
    thrown(() => loader.getAdaptiveExtension(), ExtensionErrorCode.ADAPTIVE_FAILED);
    loader.addExtension('manual-plain', ManualPlain);
    const adaptive = loader.getAdaptiveExtension();
    expect(adaptive).toBeInstanceOf(ManualPlain);
    expect(adaptive.run(url())).toBe('manual plain');
  });

  it('a hand-written @Adaptive() class registered with addExtension is returned as is, and is not a named extension', () => {
    const loader = routers();
    loader.addExtension('manual', ManualRouter);
    const adaptive = loader.getAdaptiveExtension();
    expect(adaptive).toBeInstanceOf(ManualRouter);
    expect(adaptive).toBeInstanceOf(Router);
    expect(loader.getAdaptiveExtension()).toBe(adaptive);
    expect(adaptive.route(url('router=a'))).toBe('manual');
    expect(loader.hasExtension('manual')).toBe(false);
    expect(loader.getSupportedExtensions()).toEqual(['a', 'b', 'none']);
  });

  it('addExtension(name, cls, { adaptive: true }) registers a hand-written adaptive class without the decorator', () => {
    const loader = loaderOf(Router, { none: router('none') });
    loader.addExtension('by-option', OptionAdaptiveRouter, { adaptive: true });
    const adaptive = loader.getAdaptiveExtension();
    expect(adaptive).toBeInstanceOf(OptionAdaptiveRouter);
    expect(adaptive.route()).toBe('by-option');
  });

  it('@Adaptive([keys]) on concrete methods of a non-abstract SPI class declares adaptive methods', () => {
    const meta = getSpiMetadata(Concrete);
    expect(meta?.adaptiveMethods.get('run')).toEqual(['k']);
    expect(meta?.adaptiveMethods.get('other')).toEqual(['concrete']);
    const adaptive = loaderOf(Concrete, { base: concrete('base'), special: concrete('special') }).getAdaptiveExtension();
    expect(adaptive).toBeInstanceOf(Concrete);
    expect(adaptive.run(url('k=special'))).toBe('special.run');
    expect(adaptive.run(url())).toBe('base.run');
    expect(adaptive.other(url('concrete=special'))).toBe('special.other');
    expect(adaptive.other(url('k=special'))).toBe('base.other');
    const error = thrown(() => adaptive.helper(), ExtensionErrorCode.ADAPTIVE_FAILED);
    expect(error.message).toContain('helper');
  });

  it('after its application is destroyed, getAdaptiveExtension throws ERR_SPI_DESTROYED', async () => {
    const app = newApp();
    const loader = app.getExtensionLoader(LoadBalance).addExtension('random', RandomLoadBalance);
    const lb = loader.getAdaptiveExtension();
    await app.destroy();
    thrown(() => lb.select(url(), 'x'), ExtensionErrorCode.DESTROYED);
    thrown(() => loader.getAdaptiveExtension(), ExtensionErrorCode.DESTROYED);
  });
});

@SPI({ id: 'test.adaptive.Mixed', default: 'impl', adaptive: { pick: ['mixed'] } })
abstract class Mixed {
  abstract pick(url: URL): string;
  /** Abstract and not adaptive: exists on no prototype at run time. */
  abstract close(): void;
  concrete(): string {
    return 'concrete';
  }
}

class MixedImpl extends Mixed {
  pick(): string {
    return 'impl';
  }
  close(): void {}
}

describe('methods that are not adaptive (issue 12)', () => {
  it('an abstract method that is not adaptive raises ERR_SPI_ADAPTIVE_FAILED naming it, not a TypeError', () => {
    const adaptive = loaderOf(Mixed, { impl: MixedImpl }).getAdaptiveExtension();
    const error = thrown(() => adaptive.close(), ExtensionErrorCode.ADAPTIVE_FAILED);
    expect(error.message).toBe(
      'The method close() of extension point test.adaptive.Mixed is not adaptive: get a named extension to call it ' +
        '(loader.getExtension(name).close()), or list it in @SPI({ adaptive }).',
    );
  });

  it('a concrete method that is not adaptive raises the same error; the adaptive method still dispatches', () => {
    const adaptive = loaderOf(Mixed, { impl: MixedImpl }).getAdaptiveExtension();
    expect(thrown(() => adaptive.concrete(), ExtensionErrorCode.ADAPTIVE_FAILED).message).toContain('The method concrete() of extension point test.adaptive.Mixed is not adaptive');
    expect(adaptive.pick(url())).toBe('impl');
    expect(adaptive).toBeInstanceOf(Mixed);
  });

  it('abstract methods of every SPI class in this file are refused the same way (LoadBalance, Router, Plain-with-adaptive)', () => {
    const lb = loaderOf(LoadBalance, { random: RandomLoadBalance }).getAdaptiveExtension() as unknown as Record<string, () => unknown>;
    expect(thrown(() => lb['weigh']?.(), ExtensionErrorCode.ADAPTIVE_FAILED).message).toContain('The method weigh() of extension point test.adaptive.LoadBalance');
    const r = routers().getAdaptiveExtension() as unknown as Record<string, () => unknown>;
    expect(thrown(() => r['destroy']?.(), ExtensionErrorCode.ADAPTIVE_FAILED).message).toContain('The method destroy() of extension point test.adaptive.Router');
  });

  it('names probed on any object read as absent: the adaptive extension is not a thenable and serialises', async () => {
    const adaptive = loaderOf(Mixed, { impl: MixedImpl }).getAdaptiveExtension() as unknown as Record<string, unknown>;
    expect(adaptive['then']).toBeUndefined();
    expect(await Promise.resolve(adaptive)).toBe(adaptive);
    expect(JSON.stringify(adaptive)).toBe('{}');
    expect(String(adaptive)).toBe('[adaptive test.adaptive.Mixed]');
  });
});

describe('adaptive registration after hand-out (issue 12, spec §1.7)', () => {
  it('addExtension of an adaptive class after the generated adaptive was handed out is refused', () => {
    const loader = routers();
    const handedOut = loader.getAdaptiveExtension();
    const error = thrown(() => loader.addExtension('manual', ManualRouter), ExtensionErrorCode.ADAPTIVE_FAILED);
    expect(error.message).toBe(
      'Cannot add adaptive class ManualRouter ("manual") to test.adaptive.Router: its adaptive extension (generated from ' +
        'its adaptive methods) was already created and handed out, and two live adaptive instances would disagree. ' +
        'Register adaptive classes before the first getAdaptiveExtension() (before the application starts).',
    );
    expect(loader.getAdaptiveExtension()).toBe(handedOut);
  });

  it('the same with { adaptive: true } and after a hand-written adaptive was handed out', () => {
    const loader = loaderOf(Router, { none: router('none') });
    loader.addExtension('manual', ManualRouter);
    const handedOut = loader.getAdaptiveExtension();
    const error = thrown(() => loader.addExtension('by-option', OptionAdaptiveRouter, { adaptive: true }), ExtensionErrorCode.ADAPTIVE_FAILED);
    expect(error.message).toContain('its adaptive extension (class ManualRouter) was already created and handed out');
    expect(loader.getAdaptiveExtension()).toBe(handedOut);
  });

  it('replaceExtension refuses adaptive and wrapper classes, and wrapper names (its options accept only activate)', () => {
    const loader = routers();
    expect(thrown(() => loader.replaceExtension('a', ManualRouter), ExtensionErrorCode.ADAPTIVE_FAILED).message).toBe(
      'replaceExtension("a") on test.adaptive.Router: ManualRouter is an @Adaptive class; only named extensions can be ' +
        'replaced (instances built with a wrapper or an adaptive class may already be in use). Register wrappers and ' +
        'adaptive classes with addExtension() before the first lookup.',
    );
    @Wrapper()
    class LoggingRouter extends Router {
      constructor(@InjectWrapped() private readonly inner: Router) {
        super();
      }
      route(...args: unknown[]): unknown {
        return this.inner.route(...args);
      }
    }
    expect(thrown(() => loader.replaceExtension('a', LoggingRouter), ExtensionErrorCode.INVALID_NAME).message).toContain('LoggingRouter is a @Wrapper class');
    loader.addExtension('logging', LoggingRouter);
    expect(thrown(() => loader.replaceExtension('logging', router('x')), ExtensionErrorCode.INVALID_NAME).message).toContain(
      '"logging" is a wrapper (class LoggingRouter)',
    );
    loader.replaceExtension('a', router('a2'));
    expect((loader.getExtension('a').route() as { name: string }).name).toBe('a2');
  });
});
