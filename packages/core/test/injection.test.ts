import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ApplicationModel, ExtensionError, ExtensionErrorCode, FrameworkModel, Logger, URL, type ExtensionLoader } from '@weft/core';
import { Inject, InjectAdaptive, InjectExtension, InjectLoader, InjectWrapped, SPI, Wrapper } from '@weft/core/spi';

// Extension points first: decorators below refer to them (ESM TDZ).
@SPI({ id: 'test.inject.Store', default: 'memory', scope: 'framework' })
abstract class Store {
  abstract name(): string;
}

@SPI({ id: 'test.inject.Codec', default: 'json', adaptive: { encode: ['codec'] } })
abstract class Codec {
  abstract encode(url: URL, value: unknown): string;
}

@SPI({ id: 'test.inject.Service' })
abstract class Service {
  abstract describe(): string;
}

@SPI({ id: 'test.inject.Ping' })
abstract class Ping {}

@SPI({ id: 'test.inject.Pong' })
abstract class Pong {}

class MemoryStore extends Store {
  static created = 0;
  constructor() {
    super();
    MemoryStore.created++;
  }
  name(): string {
    return 'memory';
  }
}

class JsonCodec extends Codec {
  encode(_url: URL, value: unknown): string {
    return JSON.stringify(value);
  }
}

class TextCodec extends Codec {
  encode(_url: URL, value: unknown): string {
    return String(value);
  }
}

const AUDIT_TOKEN = Symbol('audit');

class ComposedService extends Service {
  constructor(
    @InjectExtension(Store, 'memory') readonly store: Store,
    @InjectAdaptive(Codec) readonly codec: Codec,
    @InjectLoader(Codec) readonly codecs: ExtensionLoader<Codec>,
    @Inject(ApplicationModel) readonly app: ApplicationModel,
    @Inject(Logger) readonly logger: Logger,
    @Inject(AUDIT_TOKEN) readonly audit: string[],
  ) {
    super();
  }
  describe(): string {
    return `${this.store.name()} ${this.codec.encode(URL.parse('x://h?codec=text'), 42)} ${this.app.name}`;
  }
}

class NeedsMissing extends Service {
  constructor(@InjectExtension(Codec, 'yaml') readonly codec: Codec) {
    super();
  }
  describe(): string {
    return 'never';
  }
}

class Exploding extends Codec {
  constructor() {
    super();
    throw new RangeError('no entropy');
  }
  encode(): string {
    return '';
  }
}

class NeedsExploding extends Service {
  constructor(@InjectExtension(Codec, 'exploding') readonly codec: Codec) {
    super();
  }
  describe(): string {
    return 'never';
  }
}

@Wrapper({ matches: ['needs-exploding'] })
class LoggingServiceWrapper extends Service {
  constructor(@InjectWrapped() readonly inner: Service) {
    super();
  }
  describe(): string {
    return `logged(${this.inner.describe()})`;
  }
}

@Wrapper({ matches: ['guarded'] })
class GuardServiceWrapper extends Service {
  constructor(
    @InjectWrapped() readonly inner: Service,
    @InjectExtension(Codec, 'exploding') readonly codec: Codec,
  ) {
    super();
  }
  describe(): string {
    return 'never';
  }
}

class Undecorated extends Service {
  constructor(readonly dependency: unknown) {
    super();
  }
  describe(): string {
    return 'x';
  }
}

class PingImpl extends Ping {
  constructor(@InjectExtension(Pong, 'pong') readonly pong: Pong) {
    super();
  }
}

class PongImpl extends Pong {
  constructor(@InjectExtension(Ping, 'ping') readonly ping: Ping) {
    super();
  }
}

class Selfish extends Ping {
  constructor(@InjectExtension(Ping, 'selfish') readonly me: Ping) {
    super();
  }
}

class Closable extends Service {
  static closed: string[] = [];
  describe(): string {
    return 'closable';
  }
  destroy(): void {
    Closable.closed.push('closable');
  }
}

class JsonService extends Service {
  describe(): string {
    return 'json';
  }
}

let root: string;
const frameworks: FrameworkModel[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weft-inject-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'inject-test', version: '1.0.0' }));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  for (const f of frameworks.splice(0)) await f.destroy();
});

function setup(): { framework: FrameworkModel; app: ApplicationModel } {
  const framework = FrameworkModel.create({ root });
  frameworks.push(framework);
  framework.getExtensionLoader(Store).addExtension('memory', MemoryStore);
  const app = framework.newApplication('shop');
  app.getExtensionLoader(Codec).addExtension('json', JsonCodec).addExtension('text', TextCodec).addExtension('exploding', Exploding);
  app.registerService(AUDIT_TOKEN, ['started']);
  app.getExtensionLoader(Service)
    .addExtension('composed', ComposedService)
    .addExtension('needs-missing', NeedsMissing)
    .addExtension('needs-exploding', NeedsExploding)
    .addExtension('logging', LoggingServiceWrapper)
    .addExtension('undecorated', Undecorated)
    .addExtension('closable', Closable)
    .addExtension('guarded', JsonService)
    .addExtension('guard', GuardServiceWrapper);
  return { framework, app };
}

function caught(fn: () => unknown): ExtensionError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ExtensionError);
    return error as ExtensionError;
  }
  throw new Error('expected an ExtensionError');
}

describe('constructor injection through tsyringe', () => {
  it('injects named and adaptive extensions, loaders, and scope services', () => {
    const { app } = setup();
    const service = app.getExtensionLoader(Service).getExtension('composed', false) as ComposedService;
    expect(service.describe()).toBe('memory 42 shop');
    expect(service.codecs).toBe(app.getExtensionLoader(Codec));
    expect(service.codec).toBe(app.getExtensionLoader(Codec).getAdaptiveExtension());
    expect(service.app).toBe(app);
    expect(service.logger).toBe(app.logger);
    expect(service.audit).toEqual(['started']);
  });

  it('shares framework-scoped extensions between applications, and keeps application ones apart', () => {
    const { framework, app } = setup();
    const other = framework.newApplication('other');
    other.getExtensionLoader(Codec).addExtension('json', JsonCodec).addExtension('text', TextCodec);
    other.registerService(AUDIT_TOKEN, []);
    other.getExtensionLoader(Service).addExtension('composed', ComposedService);
    const a = app.getExtensionLoader(Service).getExtension('composed', false) as ComposedService;
    const b = other.getExtensionLoader(Service).getExtension('composed', false) as ComposedService;
    expect(a.store).toBe(b.store);
    expect(app.getExtensionLoader(Store)).toBe(framework.getExtensionLoader(Store));
    expect(a.codec).not.toBe(b.codec);
    expect(a).not.toBe(b);
    expect(b.app).toBe(other);
  });

  it('composes a missing dependency hop by hop, ending with what is available', () => {
    const { app } = setup();
    const error = caught(() => app.getExtensionLoader(Service).getExtension('needs-missing'));
    expect(error.code).toBe(ExtensionErrorCode.INSTANTIATION_FAILED);
    expect(error.message).toMatch(
      /^Cannot create extension "needs-missing" of test\.inject\.Service \(class NeedsMissing, added programmatically\): constructor parameter #0 needs extension "yaml" of test\.inject\.Codec → No extension "yaml" of test\.inject\.Codec in application "shop"\. Available: exploding, json, text\./,
    );
    expect((error.cause as ExtensionError).code).toBe(ExtensionErrorCode.NOT_FOUND);
  });

  it('shows the whole chain: wrapper → extension → dependency → root cause', () => {
    const { app } = setup();
    const error = caught(() => app.getExtensionLoader(Service).getExtension('needs-exploding'));
    expect(error.message).toContain('Cannot create extension "needs-exploding" of test.inject.Service');
    expect(error.message).toContain('constructor parameter #0 needs extension "exploding" of test.inject.Codec');
    expect(error.message).toContain('→ Cannot create extension "exploding" of test.inject.Codec (class Exploding');
    expect(error.message).toMatch(/RangeError: no entropy$/);
    // the bare instance is not built either, the wrapped one fails the same way, and nothing half-built is cached
    expect(app.getExtensionLoader(Service).getLoadedExtensions()).not.toContain('needs-exploding');
  });

  it("names the wrapper hop when a wrapper's own dependency fails", () => {
    const { app } = setup();
    const loader = app.getExtensionLoader(Service);
    const error = caught(() => loader.getExtension('guarded'));
    expect(error.message).toMatch(
      /^Cannot create wrapper "guard" \(class GuardServiceWrapper, added programmatically\) around extension "guarded" of test\.inject\.Service \(class JsonService, added programmatically\): constructor parameter #1 needs extension "exploding" of test\.inject\.Codec → Cannot create extension "exploding" .* RangeError: no entropy$/,
    );
    // the bare extension is fine
    expect(loader.getExtension('guarded', false).describe()).toBe('json');
  });

  it('wraps matching extensions only, passing the inner one through @InjectWrapped', () => {
    const { app } = setup();
    const loader = app.getExtensionLoader(Service);
    expect(loader.getExtension('closable').describe()).toBe('closable');
    loader.replaceExtension('needs-exploding', Closable);
    expect(loader.getExtension('needs-exploding').describe()).toBe('logged(closable)');
  });

  it('explains constructor parameters that are not marked for injection', () => {
    const { app } = setup();
    const error = caught(() => app.getExtensionLoader(Service).getExtension('undecorated'));
    expect(error.message).toContain('its constructor takes 1 parameter(s) but they are not marked for injection');
  });

  it('detects dependency cycles across extension points and names them', () => {
    const { app } = setup();
    app.getExtensionLoader(Ping).addExtension('ping', PingImpl).addExtension('selfish', Selfish);
    app.getExtensionLoader(Pong).addExtension('pong', PongImpl);
    const error = caught(() => app.getExtensionLoader(Ping).getExtension('ping'));
    expect(error.code).toBe(ExtensionErrorCode.CYCLE);
    expect(error.message).toContain('Dependency cycle: test.inject.Ping#ping → test.inject.Pong#pong → test.inject.Ping#ping');
    const self = caught(() => app.getExtensionLoader(Ping).getExtension('selfish'));
    expect(self.code).toBe(ExtensionErrorCode.CYCLE);
    // the resolution stack is clean afterwards: an unrelated lookup works
    expect(app.getExtensionLoader(Codec).getExtension('json')).toBeInstanceOf(JsonCodec);
  });

  it('calls destroy() on created instances when the scope is destroyed, once each', async () => {
    const { app } = setup();
    Closable.closed = [];
    const loader = app.getExtensionLoader(Service);
    loader.getExtension('closable');
    loader.getExtension('closable', false);
    await app.destroy();
    expect(Closable.closed).toEqual(['closable']);
  });

  it('runs destroy hooks even when one throws, and reports it to the logger', async () => {
    const warnings: string[] = [];
    class ListLogger extends Logger {
      debug(): void {}
      info(): void {}
      warn(message: string): void {
        warnings.push(message);
      }
      error(): void {}
    }
    const framework = FrameworkModel.create({ root, logger: new ListLogger() });
    const app = framework.newApplication('hooks');
    const ran: string[] = [];
    app.onDestroy(() => void ran.push('first'));
    app.onDestroy(() => {
      throw new Error('boom');
    });
    await framework.destroy();
    expect(ran).toEqual(['first']);
    expect(warnings).toEqual(['a destroy hook of application "hooks" failed']);
    expect(framework.getApplications()).toHaveLength(0);
  });
});
