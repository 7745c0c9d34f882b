import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ExtensionError, ExtensionErrorCode, FrameworkModel, URL, type ApplicationModel, type ExtensionLoader } from '@weft/core';

import { appDir, importFromApp } from './support/fixtures.js';

// Types of the fixture extension points (plain JS packages installed into the fixture apps).
interface GreeterLike {
  greet(url: URL | null, who: string): string;
}
type Spi = abstract new () => GreeterLike;

let Greeter: Spi;
let Punctuation: abstract new () => { mark(): string };
const frameworks: FrameworkModel[] = [];

function newApp(app: string): ApplicationModel {
  const framework = FrameworkModel.create({ root: appDir(app) });
  frameworks.push(framework);
  return framework.newApplication(app);
}

beforeAll(async () => {
  ({ Greeter, Punctuation } = await importFromApp<{ Greeter: Spi; Punctuation: typeof Punctuation }>(
    'app-greeter',
    '@fixture/greeter-spi',
  ));
});

afterEach(async () => {
  for (const f of frameworks.splice(0)) await f.destroy();
});

function expectExtensionError(fn: () => unknown, code: string, ...fragments: (string | RegExp)[]): ExtensionError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ExtensionError);
  const error = caught as ExtensionError;
  expect(error.code).toBe(code);
  for (const fragment of fragments) expect(error.message).toMatch(fragment);
  return error;
}

describe('loading model', () => {
  it('refuses synchronous lookups before load(), saying what to do', () => {
    const loader = newApp('app-greeter').getExtensionLoader(Greeter);
    expect(loader.isLoaded).toBe(false);
    expectExtensionError(
      () => loader.getExtension('plain'),
      ExtensionErrorCode.NOT_LOADED,
      'fixture.greeting.Greeter is not loaded',
      'await scope.loadExtensions(Greeter)',
    );
    expectExtensionError(() => loader.getSupportedExtensions(), ExtensionErrorCode.NOT_LOADED);
  });

  it('loads once, even when asked concurrently, and then answers synchronously', async () => {
    const loader = newApp('app-greeter').getExtensionLoader(Greeter);
    const [a, b] = [loader.load(), loader.load()];
    expect(a).toBe(b);
    await a;
    expect(loader.isLoaded).toBe(true);
    expect(loader.getExtension('plain').greet(null, 'ann')).toContain('hello ann');
  });

  it('needs no load() for a point no package contributes to', async () => {
    const { SPI } = await import('@weft/core/spi');
    abstract class Lonely {}
    SPI({ id: 'test.loader.Lonely' })(Lonely);
    class One extends Lonely {}
    const loader = newApp('app-greeter').getExtensionLoader(Lonely);
    expect(loader.isLoaded).toBe(true);
    loader.addExtension('one', One);
    expect(loader.getExtension('one')).toBeInstanceOf(One);
  });

  it('loads the extension points that loaded classes inject, transitively', async () => {
    const app = newApp('app-greeter');
    await app.loadExtensions(Greeter);
    expect(app.getExtensionLoader(Punctuation).isLoaded).toBe(true);
    expect(app.getExtensionLoader(Greeter).getExtension('loud', false).greet(null, 'bo')).toBe('HELLO BO!');
  });
});

describe('named extensions from manifests', () => {
  let loader: ExtensionLoader<GreeterLike>;
  beforeAll(async () => {
    const app = FrameworkModel.create({ root: appDir('app-greeter') }).newApplication('named');
    loader = app.getExtensionLoader(Greeter);
    await loader.load();
  });

  it('lists supported names sorted, from every discovered package (transitively), excluding wrappers', () => {
    expect(loader.getSupportedExtensions()).toEqual(['loud', 'plain', 'polite', 'whisper']);
    expect(loader.hasExtension('brackets')).toBe(false);
    expect(loader.hasExtension('whisper')).toBe(true);
  });

  it('does not discover packages that are only devDependencies of the app', () => {
    expect(loader.hasExtension('shout')).toBe(false);
  });

  it('uses the default export when the manifest names none', () => {
    expect(loader.getExtension('whisper', false).constructor.name).toBe('WhisperGreeter');
  });

  it('resolves "default" and "true" to the SPI default and caches them', () => {
    const byDefault = loader.getExtension('default');
    expect(byDefault).toBe(loader.getExtension('plain'));
    expect(loader.getExtension('true')).toBe(byDefault);
    expect(loader.getDefaultExtension()).toBe(byDefault);
    expect(loader.getDefaultExtensionName()).toBe('plain');
  });

  it('returns one instance per scope (singleton), and different instances in another application', () => {
    const first = loader.getExtension('polite');
    expect(loader.getExtension('polite')).toBe(first);
    expect(loader.getLoadedExtension('polite')).toBe(first);
    expect(loader.getLoadedExtensions()).toContain('polite');
  });

  it('reports where an extension came from', () => {
    const source = loader.getExtensionSource('polite');
    expect(source?.kind).toBe('manifest');
    if (source?.kind === 'manifest') {
      expect(source.record.pkg.name).toBe('@fixture/greeter-extra');
      expect(source.record.manifestPath).toMatch(/META-INF\/weft\/fixture\.greeting\.Greeter\.json$/);
    }
    expect(loader.getExtensionName(loader.getExtension('polite', false))).toBe('polite');
  });

  it('getOrDefaultExtension falls back to the default for unknown or empty names', () => {
    expect(loader.getOrDefaultExtension('nope')).toBe(loader.getExtension('plain'));
    expect(loader.getOrDefaultExtension(undefined)).toBe(loader.getExtension('plain'));
    expect(loader.getOrDefaultExtension('loud')).toBe(loader.getExtension('loud'));
  });

  it('rejects empty names', () => {
    expectExtensionError(() => loader.getExtension(''), ExtensionErrorCode.INVALID_NAME, 'non-empty');
  });

  it('explains a missing name: available names and the closest one, and no install hint for a name no known package has', () => {
    const error = expectExtensionError(
      () => loader.getExtension('polit'),
      ExtensionErrorCode.NOT_FOUND,
      'No extension "polit" of fixture.greeting.Greeter',
      'Available: loud, plain, polite, whisper.',
      'Did you mean "polite"?',
    );
    expect(error.message).toBe(
      'No extension "polit" of fixture.greeting.Greeter in application "named". Available: loud, plain, polite, whisper. Did you mean "polite"? ' +
        'Discovery also reported: "@fixture/greeter-clash" is a Weft plugin found in devDependencies of fixture-app-greeter; extensions are ' +
        'discovered from dependencies, so its extensions are not loaded. Move it to "dependencies" (npm install @fixture/greeter-clash) if the application uses it.',
    );
    expect(error.message).not.toMatch(/install polit|install <package>/);
  });
});

describe('wrappers from manifests', () => {
  it('wraps every extension, the smallest order outermost, honouring mismatches', async () => {
    const app = newApp('app-greeter');
    await app.loadExtensions(Greeter);
    const loader = app.getExtensionLoader(Greeter);
    // stars (order 5) outside brackets (order 10)
    expect(loader.getExtension('plain').greet(null, 'x')).toBe('*[hello x]*');
    // stars mismatches "loud"
    expect(loader.getExtension('loud').greet(null, 'x')).toBe('[HELLO X!]');
    // unwrapped
    expect(loader.getExtension('plain', false).greet(null, 'x')).toBe('hello x');
  });
});

describe('adaptive extension from a manifest point', () => {
  it('dispatches per call on the URL key declared by @SPI, falling back to the default', async () => {
    const app = newApp('app-greeter');
    await app.loadExtensions(Greeter);
    const adaptive = app.getExtensionLoader(Greeter).getAdaptiveExtension();
    expect(adaptive).toBeInstanceOf(Greeter);
    expect(adaptive.greet(URL.parse('x://h?greeter=polite'), 'y')).toBe('*[good day, y]*');
    expect(adaptive.greet(URL.parse('x://h'), 'y')).toBe('*[hello y]*');
  });
});

describe('duplicate names across packages', () => {
  it('rejects load() naming both packages, keeps the rest usable, and refuses the clashing name', async () => {
    // app-clash has its own installed copy of the SPI package: use that copy's class.
    const { Greeter: ClashGreeter } = await importFromApp<{ Greeter: Spi }>('app-clash', '@fixture/greeter-spi');
    const app = newApp('app-clash');
    const loader = app.getExtensionLoader(ClashGreeter);
    let loadError: unknown;
    await loader.load().catch((e: unknown) => (loadError = e));
    expect(loadError).toBeInstanceOf(ExtensionError);
    expect((loadError as ExtensionError).code).toBe(ExtensionErrorCode.DUPLICATE_NAME);
    expect((loadError as ExtensionError).message).toMatch(/@fixture\/greeter-spi@1\.0\.0.*@fixture\/greeter-clash@9\.9\.9/s);
    // Nothing lost: the non-clashing extensions of both packages work.
    expect(loader.getExtension('shout').greet(null, 'a')).toBe('*[a!!!]*');
    expect(loader.getExtension('loud', false).greet(null, 'a')).toBe('HELLO A!');
    expectExtensionError(
      () => loader.getExtension('plain'),
      ExtensionErrorCode.DUPLICATE_NAME,
      'declared twice',
      '@fixture/greeter-spi',
      '@fixture/greeter-clash',
    );
    expect(loader.hasExtension('plain')).toBe(false);
    expect(loader.getSupportedExtensions()).toEqual(['loud', 'shout']);
  });
});

describe('broken packages', () => {
  let Thing: Spi;
  let Invalid: Spi;
  beforeAll(async () => {
    ({ Thing, Other: Invalid } = await importFromApp<{ Thing: Spi; Other: Spi }>('app-broken', '@fixture/broken-point'));
  });

  it('lists every load problem of a point in one error, and keeps the good entries', async () => {
    const loader = newApp('app-broken').getExtensionLoader(Thing);
    let error: ExtensionError | undefined;
    await loader.load().catch((e: ExtensionError) => (error = e));
    expect(error).toBeInstanceOf(ExtensionError);
    expect(error?.message).toMatch(/4 problems loading extension point fixture\.broken\.Thing/);
    expect(error?.message).toContain('module initialisation exploded');
    expect(error?.message).toContain('has no exported class "NoSuchThing" (it exports: FailingThing, GoodThing, NotAThing)');
    expect(error?.message).toContain('nope.js');
    expect(error?.message).toContain('class NotAThing does not extend Thing (fixture.broken.Thing)');
    expect(Array.isArray(error?.cause)).toBe(true);
    expect(loader.getSupportedExtensions()).toEqual(['failing', 'good']);
    expect(loader.getExtension('good')).toBeInstanceOf(Thing);
  });

  it('reports the recorded failure when the broken name is asked for', async () => {
    const loader = newApp('app-broken').getExtensionLoader(Thing);
    await loader.load().catch(() => undefined);
    const error = expectExtensionError(
      () => loader.getExtension('explodes'),
      ExtensionErrorCode.NOT_FOUND,
      'It was declared but failed to load',
      'module initialisation exploded',
    );
    expect((error.cause as ExtensionError).code).toBe(ExtensionErrorCode.LOAD_FAILED);
    expectExtensionError(() => loader.getExtension('not-a-thing'), ExtensionErrorCode.NOT_FOUND, 'does not extend Thing');
  });

  it('reports a constructor failure with the extension, its package, and the root cause', async () => {
    const loader = newApp('app-broken').getExtensionLoader(Thing);
    await loader.load().catch(() => undefined);
    expectExtensionError(
      () => loader.getExtension('failing'),
      ExtensionErrorCode.INSTANTIATION_FAILED,
      'Cannot create extension "failing" of fixture.broken.Thing (class FailingThing, from package @fixture/broken-point@1.0.0',
      'Error: disk on fire',
    );
  });

  it('rejects a manifest that breaks the schema, with every problem located', async () => {
    const loader = newApp('app-broken').getExtensionLoader(Invalid);
    let error: ExtensionError | undefined;
    await loader.load().catch((e: ExtensionError) => (error = e));
    expect(error?.code).toBe(ExtensionErrorCode.INVALID_MANIFEST);
    const message = error?.message ?? '';
    expect(message).toContain('fixture.broken.Invalid.json');
    expect(message).toContain('/Bad_Name');
    expect(message).toContain('/escape/module');
    expect(message).toContain('/weird/activate/colour');
    expect(message).toContain('/weird/activate/order');
    expect(message).toContain('/__proto__');
    // An invalid manifest contributes nothing (not even its valid-looking entries): no half-applied files.
    expect(loader.getSupportedExtensions()).toEqual([]);
    expect(({} as Record<string, unknown>)['module']).toBeUndefined();
  });

  it('records unparsable JSON as a problem of that point only', () => {
    const framework = FrameworkModel.create({ root: appDir('app-broken') });
    frameworks.push(framework);
    const garbled = framework.index.problems.filter((p) => p.pointId === 'fixture.broken.Garbled');
    expect(garbled).toHaveLength(1);
    expect(garbled[0]?.message).toMatch(/not valid JSON/);
  });
});

describe('scopes', () => {
  it('gives two applications their own instances of application-scoped extensions', async () => {
    const framework = FrameworkModel.create({ root: appDir('app-greeter') });
    frameworks.push(framework);
    const a = framework.newApplication('a');
    const b = framework.newApplication('b');
    await Promise.all([a.loadExtensions(Greeter), b.loadExtensions(Greeter)]);
    expect(a.getExtensionLoader(Greeter)).not.toBe(b.getExtensionLoader(Greeter));
    expect(a.getExtensionLoader(Greeter).getExtension('plain')).not.toBe(b.getExtensionLoader(Greeter).getExtension('plain'));
  });

  it('refuses an application-scoped point from the framework', () => {
    const framework = FrameworkModel.create({ root: appDir('app-greeter') });
    frameworks.push(framework);
    expectExtensionError(() => framework.getExtensionLoader(Greeter), ExtensionErrorCode.SCOPE_MISMATCH, 'scope "application"');
  });

  it('refuses use after destroy', async () => {
    const app = newApp('app-greeter');
    const loader = app.getExtensionLoader(Greeter);
    await loader.load();
    await app.destroy();
    expectExtensionError(() => loader.getExtension('loud'), ExtensionErrorCode.DESTROYED, 'application "app-greeter" has been destroyed');
    expectExtensionError(() => app.getExtensionLoader(Greeter), ExtensionErrorCode.DESTROYED);
  });

  it('rejects a class that is not an extension point', () => {
    class NotAnSpi {}
    expectExtensionError(
      () => newApp('app-greeter').getExtensionLoader(NotAnSpi),
      ExtensionErrorCode.NOT_AN_SPI,
      'NotAnSpi is not an extension point',
    );
  });

  it('reports a root without package.json', () => {
    expectExtensionError(() => FrameworkModel.create({ root: '/nonexistent/dir' }), ExtensionErrorCode.LOAD_FAILED, 'no package.json');
  });
});
