import { afterEach, describe, expect, it } from 'vitest';

import {
  buildFilterChain,
  defineService,
  Filter,
  Invocation,
  Invoker,
  Protocol,
  Result,
  RpcError,
  RpcErrorCode,
  URL,
  WeftApplication,
} from '@weft/core';
import { constantTimeEqual, TOKEN_KEY, TokenFilter } from '@weft/filter-token';
import { createTestApp, RecordingLogger, StubInvoker, type TestApp } from '@weft/test-utils';

// ---------------------------------------------------------------------------------------------------------------
// Harness: a real application (core + cluster + this package), the filter in the chain the loader builds.

const Vault = defineService('org.acme.Vault', {
  open: { args: [String], returns: String },
});

let implementationCalls = 0;
const implementation = {
  open(box: string): string {
    implementationCalls++;
    return `opened ${box}`;
  },
};

/** A provider filter outside `token` that drops the token of calls carrying attachment `strip`. */
class StripFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (invocation.hasAttachment('strip')) invocation.removeAttachment(TOKEN_KEY);
    return invoker.invoke(invocation);
  }
}

/** Attachments that reached the inside of the chain (a filter after `token`), per call. */
const inside: ReadonlyMap<string, unknown>[] = [];

class InsideFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    inside.push(new Map(invocation.getAttachments()));
    return invoker.invoke(invocation);
  }
}

const apps: { app: WeftApplication; testApp: TestApp }[] = [];

async function start(packages: readonly string[] = ['@weft/core', '@weft/cluster', '@weft/filter-token']) {
  const testApp = createTestApp(packages);
  const app = await WeftApplication.start({ root: testApp.root, name: 'vault', logger: new RecordingLogger() });
  apps.push({ app, testApp });
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('test-strip', StripFilter, { activate: { group: ['provider'], order: -100 } });
  filters.addExtension('test-inside', InsideFilter, { activate: { group: ['provider'], order: 100 } });
  return { app, filters };
}

afterEach(async () => {
  for (const { app, testApp } of apps.splice(0)) {
    await app.shutdown();
    testApp.cleanup();
  }
  implementationCalls = 0;
  inside.length = 0;
});

async function rejection(call: Result | Promise<unknown>): Promise<RpcError> {
  const error = await Promise.resolve(call).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// ---------------------------------------------------------------------------------------------------------------

describe('manifest', () => {
  it('activates token in provider chains whose URL has a token, never otherwise and never in consumer chains', async () => {
    const { app, filters } = await start();
    const { url } = await app.export(Vault, implementation, { parameters: { token: true } });
    expect(filters.selectActivateNames(url, 'service.filter', 'provider')).toEqual(['test-strip', 'token', 'test-inside']);
    expect(filters.selectActivateNames(url, 'reference.filter', 'consumer')).not.toContain('token');
    for (const off of ['false', '0', 'N/A', 'null']) {
      expect(filters.selectActivateNames(url.addParameter('token', off), 'service.filter', 'provider')).not.toContain('token');
    }
    expect(filters.selectActivateNames(url.removeParameter('token'), 'service.filter', 'provider')).not.toContain('token');
    expect(filters.getExtension('token')).toBeInstanceOf(TokenFilter);
  });

  it('is the only filter an application with core and this package gets', async () => {
    const testApp = createTestApp(['@weft/core', '@weft/filter-token']);
    const app = await WeftApplication.start({ root: testApp.root, name: 'bare', logger: new RecordingLogger() });
    apps.push({ app, testApp });
    expect(app.model.getExtensionLoader(Filter).getSupportedExtensions()).toEqual(['token']);
  });
});

describe('token check', () => {
  it('token=true exports a random UUID per export, which injvm consumers send by themselves', async () => {
    const { app } = await start();
    const first = await app.export(Vault, implementation, { parameters: { token: true } });
    const second = await app.export(Vault, implementation, { version: '2.0.0', parameters: { token: 'default' } });
    const token = first.url.getParameter('token') as string;
    expect(token).toMatch(UUID);
    expect(second.url.getParameter('token')).toMatch(UUID);
    expect(second.url.getParameter('token')).not.toBe(token);

    const vault = await app.refer(Vault, { retries: 0 });
    expect(await vault.open('a')).toBe('opened a');
    const v2 = await app.refer(Vault, { retries: 0, version: '2.0.0' });
    expect(await v2.open('b')).toBe('opened b');
    expect(implementationCalls).toBe(2);
  });

  it('a fixed token string works as is', async () => {
    const { app } = await start();
    const { url } = await app.export(Vault, implementation, { parameters: { token: 's3cret-token' } });
    expect(url.getParameter('token')).toBe('s3cret-token');
    const vault = await app.refer(Vault, { retries: 0 });
    expect(await vault.open('a')).toBe('opened a');
    expect(await vault.$call('open', ['b'], { attachments: { token: 's3cret-token' } })).toBe('opened b');
    // One prepared secret serves every call: a longer or shorter candidate before never leaves a trace.
    for (const [token, ok] of [['s3cret-token-and-more', false], ['s3cret-token', true], ['s3cret-tok', false], ['s3cret-token', true]] as const) {
      const outcome = await vault.$call('open', ['c'], { attachments: { token } }).then(
        () => true,
        (error: unknown) => (error instanceof RpcError && error.code === RpcErrorCode.FORBIDDEN ? false : error),
      );
      expect(outcome).toBe(ok);
    }
  });

  it('removes the token once checked: the implementation side never sees it', async () => {
    const { app } = await start();
    await app.export(Vault, implementation, { parameters: { token: true } });
    const vault = await app.refer(Vault, { retries: 0 });
    await vault.$call('open', ['a'], { attachments: { traceId: 't-1' } });
    expect(inside).toHaveLength(1);
    expect(inside[0]?.get('traceId')).toBe('t-1');
    expect(inside[0]?.has(TOKEN_KEY)).toBe(false);
  });

  it('refuses a wrong token with forbidden, naming service, method and caller but neither token', async () => {
    const { app } = await start();
    const { url } = await app.export(Vault, implementation, { parameters: { token: true } });
    const vault = await app.refer(Vault, { retries: 0 });
    const error = await rejection(
      vault.$call('open', ['a'], { attachments: { token: 'guessed-token', 'remote.application': 'shop', 'remote.address': '10.0.0.7:5050' } }),
    );
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.dubboCode).toBe(4);
    expect(error.message).toContain(
      "Invalid token: call to org.acme.Vault.open() from consumer shop at 10.0.0.7:5050 refused (its token does not match the provider's).",
    );
    expect(error.message).not.toContain('guessed-token');
    expect(error.message).not.toContain(url.getParameter('token') as string);
    expect(implementationCalls).toBe(0);
  });

  it('refuses a consumer configured with another token', async () => {
    const { app } = await start();
    await app.export(Vault, implementation, { parameters: { token: 'right' } });
    const vault = await app.refer(Vault, { retries: 0, parameters: { token: 'wrong' } });
    const error = await rejection(vault.open('a'));
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toContain("from an unidentified consumer refused (its token does not match the provider's)");
    expect(error.message).not.toMatch(/right|wrong/);
    expect(implementationCalls).toBe(0);
  });

  it('refuses a call without a token', async () => {
    const { app } = await start();
    await app.export(Vault, implementation, { parameters: { token: true } });
    const vault = await app.refer(Vault, { retries: 0 });
    const error = await rejection(vault.$call('open', ['a'], { attachments: { strip: true, 'remote.address': '10.0.0.8:6060' } }));
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toContain('Invalid token: call to org.acme.Vault.open() from consumer at 10.0.0.8:6060 refused (it carried no token).');
    expect(implementationCalls).toBe(0);
  });

  it('is not in the chain of a provider without token, which accepts any call', async () => {
    const { app } = await start();
    await app.export(Vault, implementation);
    const vault = await app.refer(Vault, { retries: 0 });
    expect(await vault.$call('open', ['a'], { attachments: { token: 'anything' } })).toBe('opened a');
    expect(await vault.$call('open', ['b'], { attachments: { strip: true } })).toBe('opened b');
  });
});

describe('synchronous calls', () => {
  const providerUrl = URL.parse('injvm://127.0.0.1/org.acme.Vault?interface=org.acme.Vault&side=provider&token=s3cret');

  /** The provider chain the loader activates (test-strip, token, test-inside) around a stub of the rest. */
  function chain(app: WeftApplication, inner: Invoker): Invoker {
    const filters = app.model.getExtensionLoader(Filter);
    const active = filters.getActivateExtensions(inner.getUrl(), 'service.filter', 'provider');
    expect(active.map((f) => filters.getExtensionName(f))).toEqual(['test-strip', 'token', 'test-inside']);
    return buildFilterChain(inner, active, (f) => filters.getExtensionName(f) ?? '?', app.model.logger);
  }

  const open = (attachments: Record<string, string>) => new Invocation({ methodName: 'open', args: ['a'], service: Vault, attachments });

  it('passes a call with the right token on and answers with the synchronous Result itself, value or business error', async () => {
    const { app } = await start();
    for (const expected of [Result.of('opened a'), Result.ofException(new Error('box jammed'))]) {
      const inner = new StubInvoker(providerUrl, () => expected);
      const invocation = open({ token: 's3cret', traceId: 't-1' });
      expect(chain(app, inner).invoke(invocation)).toBe(expected);
      expect(inner.reached).toEqual([invocation]);
      expect(invocation.hasAttachment(TOKEN_KEY)).toBe(false);
    }
  });

  it('still rejects a wrong or missing token (a rejected promise, never a throw) without calling on', async () => {
    const { app } = await start();
    const inner = new StubInvoker(providerUrl, () => Result.of('opened a'));
    for (const attachments of [{ token: 'guessed' }, {}] as Record<string, string>[]) {
      const answer = chain(app, inner).invoke(open(attachments));
      expect(answer).toBeInstanceOf(Promise);
      expect((await rejection(answer)).code).toBe(RpcErrorCode.FORBIDDEN);
    }
    expect(inner.reached).toEqual([]);
  });

  it('lets a synchronous throw of the rest of the chain through', async () => {
    const { app } = await start();
    const boom = new Error('inner chain threw');
    const inner = new StubInvoker(providerUrl, () => {
      throw boom;
    });
    expect(() => chain(app, inner).invoke(open({ token: 's3cret' }))).toThrow(boom);
  });

  it('answers synchronously end to end for a synchronous implementation behind injvm', async () => {
    const { app } = await start();
    await app.export(Vault, implementation, { parameters: { token: 's3cret' } });
    const url = new URL({ protocol: 'injvm', host: '127.0.0.1', path: Vault.name, parameters: { interface: Vault.name } });
    const raw = await app.model.getExtensionLoader(Protocol).getExtension('injvm').refer(Vault, url);
    try {
      const answer = raw.invoke(new Invocation({ methodName: 'open', args: ['b'], service: Vault }));
      expect(answer).toBeInstanceOf(Result);
      expect((answer as Result).value).toBe('opened b');
      expect(inside[0]?.has(TOKEN_KEY)).toBe(false);
      const refused = raw.invoke(new Invocation({ methodName: 'open', args: ['c'], service: Vault, attachments: { token: 'wrong' } }));
      expect((await rejection(refused)).code).toBe(RpcErrorCode.FORBIDDEN);
      expect(implementationCalls).toBe(1);
    } finally {
      await raw.destroy();
    }
  });
});

describe('constantTimeEqual', () => {
  it('is true for equal strings only', () => {
    expect(constantTimeEqual('s3cret', 's3cret')).toBe(true);
    expect(constantTimeEqual('s3cret', 's3creT')).toBe(false);
    expect(constantTimeEqual('s3cret', 'x3cret')).toBe(false);
    expect(constantTimeEqual('ключ-🔑', 'ключ-🔑')).toBe(true);
    expect(constantTimeEqual('ключ-🔑', 'ключ-🔒')).toBe(false);
  });

  it('is false for different lengths, including a prefix, an extension and the empty string', () => {
    expect(constantTimeEqual('s3cret', 's3cre')).toBe(false);
    expect(constantTimeEqual('s3cret', 's3cret!')).toBe(false);
    expect(constantTimeEqual('s3cret', 's3cret\u0000')).toBe(false); // the zero padding is not a wildcard
    expect(constantTimeEqual('s3cret', '')).toBe(false);
    expect(constantTimeEqual('', 's3cret')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('s3cret\u0000', 's3cret')).toBe(false); // nor is a secret's trailing NUL
  });

  it('tells apart strings that only UTF-8 encoding would confuse (lone surrogates become U+FFFD there)', () => {
    expect(constantTimeEqual('tok\ud800', 'tok\udc00')).toBe(false);
    expect(constantTimeEqual('tok\ud800', 'tok\ud800')).toBe(true);
  });

  it('compares bytes too', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3, 0]))).toBe(false);
    expect(constantTimeEqual(Buffer.from('abc'), 'abc')).toBe(true);
  });
});
