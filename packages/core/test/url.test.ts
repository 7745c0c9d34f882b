import { describe, expect, it } from 'vitest';
import { URL, ExtensionError } from '@weft/core';

const INVALID_URL = 'ERR_SPI_INVALID_URL';
const INVALID_PARAMETER = 'ERR_SPI_INVALID_PARAMETER';

/** Runs `fn`, asserts it throws an ExtensionError with `code`, and returns the error. */
function thrown(fn: () => unknown, code: string): ExtensionError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(code);
    return error as ExtensionError;
  }
  throw new Error('expected an ExtensionError');
}

const params = (url: URL): Record<string, string> => Object.fromEntries(url.parameters);

describe('URL.parse', () => {
  it('reads every component', () => {
    const url = URL.parse('dubbo://admin:secret@10.0.0.1:20880/org.demo.Greeter?timeout=1000&group=g1');
    expect(url.protocol).toBe('dubbo');
    expect(url.username).toBe('admin');
    expect(url.password).toBe('secret');
    expect(url.host).toBe('10.0.0.1');
    expect(url.port).toBe(20880);
    expect(url.path).toBe('org.demo.Greeter');
    expect(params(url)).toEqual({ timeout: '1000', group: 'g1' });
  });

  it('gives port 0, empty user info and empty path when absent', () => {
    const url = URL.parse('registry://zk.local');
    expect([url.host, url.port, url.username, url.password, url.path]).toEqual(['zk.local', 0, '', '', '']);
    expect(url.parameters.size).toBe(0);
  });

  it('reads user without password, and splits user info at the last "@"', () => {
    expect(URL.parse('p://bob@h').username).toBe('bob');
    expect(URL.parse('p://bob@h').password).toBe('');
    const url = URL.parse('p://bob:p@ss@h:1');
    expect([url.username, url.password, url.host, url.port]).toEqual(['bob', 'p@ss', 'h', 1]);
  });

  it('gives the empty string to a part without "="', () => {
    expect(params(URL.parse('p://h?flag&a=1'))).toEqual({ flag: '', a: '1' });
  });

  it('skips a leading "=" of a part and splits at the first "="', () => {
    expect(params(URL.parse('p://h?=a=1&==b&c=x=y&='))).toEqual({ a: '1', b: '', c: 'x=y' });
  });

  it('splits on ";" as well as "&", and ignores empty parts', () => {
    expect(params(URL.parse('p://h?a=1;b=2&&c=3;'))).toEqual({ a: '1', b: '2', c: '3' });
  });

  it('lets a later duplicate win', () => {
    expect(URL.parse('p://h?a=1&a=2').getParameter('a')).toBe('2');
  });

  it('adds the stripped key for "default." parameters unless given explicitly', () => {
    expect(URL.parse('p://h?default.timeout=5').getParameter('timeout')).toBe('5');
    expect(URL.parse('p://h?default.timeout=5&timeout=3').getParameter('timeout')).toBe('3');
    expect(URL.parse('p://h?timeout=3&default.timeout=5').getParameter('timeout')).toBe('3');
    expect(URL.parse('p://h?default.timeout=5').getParameter('default.timeout')).toBe('5');
    // An escaped dot is not the compatibility prefix.
    const escaped = URL.parse('p://h?default%2Etimeout=5');
    expect(params(escaped)).toEqual({ 'default.timeout': '5' });
  });

  it('supports bracketed IPv6 hosts, with and without port', () => {
    const url = URL.parse('dubbo://[::1]:20880/svc');
    expect([url.host, url.port, url.path]).toEqual(['::1', 20880, 'svc']);
    expect(url.getAddress()).toBe('[::1]:20880');
    expect(url.toString()).toBe('dubbo://[::1]:20880/svc');
    const noPort = URL.parse('dubbo://u@[fe80::1%eth0]/svc');
    expect([noPort.username, noPort.host, noPort.port]).toEqual(['u', 'fe80::1%eth0', 0]);
  });

  it('reads an unbracketed host with several ":" as IPv6 without port', () => {
    const url = URL.parse('dubbo://fe80::1/svc');
    expect([url.host, url.port]).toEqual(['fe80::1', 0]);
  });

  it('accepts "file:/path" (protocol delimited by ":/")', () => {
    const url = URL.parse('file:/etc/weft.conf');
    expect([url.protocol, url.host, url.path]).toEqual(['file', '', 'etc/weft.conf']);
    expect(URL.parse('file:///etc/weft.conf').equals(url)).toBe(true);
  });

  it('accepts a body without protocol', () => {
    const url = URL.parse('127.0.0.1:20880/org.demo.Greeter?a=1');
    expect([url.protocol, url.host, url.port, url.path]).toEqual(['', '127.0.0.1', 20880, 'org.demo.Greeter']);
    expect(url.getParameter('a')).toBe('1');
  });

  it('rejects "://" or ":/" at the start as a missing protocol, naming the URL', () => {
    const error = thrown(() => URL.parse('://10.0.0.1:20880/svc'), INVALID_URL);
    expect(error.message).toContain('missing protocol');
    expect(error.message).toContain('"://10.0.0.1:20880/svc"');
    expect(error.message).toContain('expected protocol://');
    thrown(() => URL.parse(':/svc'), INVALID_URL);
  });

  it.each(['p://h:abc/x', 'p://h:70000', 'p://h:', 'p://h:-1', 'p://[::1]:x', 'p://[::1]x'])(
    'rejects a bad port or host: %s',
    (text) => {
      const error = thrown(() => URL.parse(text), INVALID_URL);
      expect(error.message).toContain(text);
    },
  );

  it('rejects an unterminated IPv6 bracket', () => {
    expect(thrown(() => URL.parse('p://[::1:80/x'), INVALID_URL).message).toContain('"["');
  });

  it('rejects a malformed password or secret value without showing it', () => {
    const password = thrown(() => URL.parse('p://u:s3cr%G1@h'), INVALID_URL);
    expect(password.message).toBe('Invalid URL "p://u:***@h": malformed percent-encoding in password (not shown: a secret); expected "%" followed by two hex digits forming UTF-8.');
    const token = thrown(() => URL.parse('p://h?token=s3cr%zz'), INVALID_URL);
    expect(token.message).toBe('Invalid URL "p://h?token=***": malformed percent-encoding in parameter "token" (not shown: a secret); expected "%" followed by two hex digits forming UTF-8.');
  });

  it.each(['p://h/x?a=%zz', 'p://h/x?a=%4', 'p://h/%', 'p://us%er@h', 'p://h?%=1', 'p://h?a=%FF'])(
    'rejects malformed percent-encoding: %s',
    (text) => {
      const error = thrown(() => URL.parse(text), INVALID_URL);
      expect(error.message).toContain(`"${text}"`);
      expect(error.message).toContain('percent-encoding');
      expect(error.message).toContain('expected');
    },
  );

  it('ignores everything from "#"', () => {
    expect(params(URL.parse('p://h/x?a=1#frag&b=2'))).toEqual({ a: '1' });
    const url = URL.parse('p://h/x#frag?a=1');
    expect(url.path).toBe('x');
    expect(url.parameters.size).toBe(0);
  });

  it('accepts an empty query', () => {
    const url = URL.parse('p://h/x?');
    expect(url.parameters.size).toBe(0);
    expect(url.toString()).toBe('p://h/x');
  });

  it('decodes escapes of either case in user, password, path, keys and values', () => {
    const url = URL.parse('p://a%3ab:c%2Fd@h/x%2fy%20%C3%A9?k%3d=v%26w&caf%c3%a9=%E4%B8%AD');
    expect([url.username, url.password, url.path]).toEqual(['a:b', 'c/d', 'x/y é']);
    expect(params(url)).toEqual({ 'k=': 'v&w', café: '中' });
  });

  it('keeps "+" literally (no form decoding)', () => {
    const url = URL.parse('p://h/a+b?x=1+2&y%2B=%2B');
    expect(url.path).toBe('a+b');
    expect(params(url)).toEqual({ x: '1+2', 'y+': '+' });
  });

  it('trims the input and parses the empty string as an empty URL', () => {
    expect(URL.parse('  p://h  ').host).toBe('h');
    expect(URL.parse('').equals(new URL({}))).toBe(true);
  });
});

describe('URL.encode / URL.decode', () => {
  it('form-encodes like Java URLEncoder', () => {
    expect(URL.encode('dubbo://h:1/a.B?x=1 2&y=~é*')).toBe('dubbo%3A%2F%2Fh%3A1%2Fa.B%3Fx%3D1+2%26y%3D%7E%C3%A9*');
    expect(URL.encode('')).toBe('');
  });

  it('form-decodes, "+" becoming space', () => {
    expect(URL.decode('a+b%2Bc%c3%a9')).toBe('a b+cé');
    expect(URL.decode('')).toBe('');
    const text = 'override://0.0.0.0/a.B?category=configurators&x=1 2+3';
    expect(URL.decode(URL.encode(text))).toBe(text);
  });

  it('rejects malformed escapes', () => {
    expect(thrown(() => URL.decode('a%zz'), INVALID_URL).message).toContain('"a%zz"');
  });
});

describe('URL string forms', () => {
  it('encodes reserved characters and keeps , : / * . - _ ~ readable', () => {
    const url = new URL({
      protocol: 'dubbo',
      host: 'h',
      port: 1,
      path: 'a.B/c:d',
      parameters: { list: 'a,b:c/d*e.f-g_h~i', y: 'a&b=c;d#e?f+g h%é' },
    });
    expect(url.toString()).toBe(
      'dubbo://h:1/a.B/c:d?list=a,b:c/d*e.f-g_h~i&y=a%26b%3Dc%3Bd%23e%3Ff%2Bg%20h%25%C3%A9',
    );
    expect(url.toFullString()).toBe(url.toString());
  });

  it('writes parameters in insertion order, including empty values', () => {
    const url = new URL({ protocol: 'p', host: 'h', parameters: [['z', '1'], ['a', ''], ['m', '3']] });
    expect(url.toString()).toBe('p://h?z=1&a=&m=3');
  });

  it('escapes user info delimiters', () => {
    const url = new URL({ protocol: 'p', username: 'a:b@c', password: 'x/y:z@', host: 'h' });
    expect(url.toString()).toBe('p://a%3Ab%40c:x%2Fy%3Az%40@h');
    expect(URL.parse(url.toString()).equals(url)).toBe(true);
    expect(new URL({ protocol: 'p', password: 'pw', host: 'h' }).toString()).toBe('p://:pw@h');
  });

  it('gives the identity string without parameters', () => {
    const url = URL.parse('dubbo://u:p@h:20880/a.B?x=1');
    expect(url.toIdentityString()).toBe('dubbo://u:p@h:20880/a.B');
    expect(URL.parse('p://h').toIdentityString()).toBe('p://h');
  });

  it('gives the address', () => {
    expect(URL.parse('p://h:1').getAddress()).toBe('h:1');
    expect(URL.parse('p://h').getAddress()).toBe('h');
    expect(URL.parse('p://[::1]').getAddress()).toBe('[::1]');
  });

  it('escapes the dot of "default.x" when "x" is not a parameter, so the round trip holds', () => {
    const url = new URL({ protocol: 'p', host: 'h', parameters: { 'default.timeout': '5' } });
    expect(url.toString()).toBe('p://h?default%2Etimeout=5');
    expect(params(URL.parse(url.toString()))).toEqual({ 'default.timeout': '5' });
    const parsed = URL.parse('p://h?default.timeout=5');
    expect(parsed.toString()).toBe('p://h?default.timeout=5&timeout=5');
  });

  it('escapes ":" in the path when there is no protocol', () => {
    const url = new URL({ host: 'h', path: 'a://b' });
    expect(url.toString()).toBe('h/a%3A//b');
    expect(URL.parse(url.toString()).equals(url)).toBe(true);
  });

  it('returns the same string on every call', () => {
    const url = URL.parse('p://h?a=1');
    expect(url.toString()).toBe(url.toString());
  });
});

describe('URL round trip', () => {
  // Deterministic PRNG (mulberry32), so failures reproduce.
  function random(seed: number): () => number {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const PIECES = [
    'a', 'Z', '0', '.', '-', '_', '~', ',', ':', '/', '*', '%', '&', '=', ';', '#', '?', '+', ' ', '@', '[', ']',
    '!', "'", '"', '\\', '\t', '\n', '\u0000', 'é', '中', '😀', '\u00a0', '%25', '%zz', '%2', 'default.',
    '__proto__', 'constructor', '://', ':/',
  ];
  const SPECIAL_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'default.x', 'x', 'methods'];
  const PROTOCOLS = ['', 'dubbo', 'file', 'h2c+tls', 'tri-1.0'];
  const HOSTS = ['', 'localhost', '10.0.0.1', '::1', 'fe80::1%eth0', 'a-b.example', 'ü.example'];
  const PORTS = [0, 1, 20880, 65535];

  it('URL.parse(u.toString()) equals u for generated content', () => {
    const next = random(0x5eed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const text = (max: number): string => {
      let s = '';
      const n = Math.floor(next() * (max + 1));
      for (let i = 0; i < n; i++) s += pick(PIECES);
      return s;
    };
    for (let round = 0; round < 600; round++) {
      const entries: [string, string][] = [];
      const count = Math.floor(next() * 6);
      for (let i = 0; i < count; i++) {
        const key = next() < 0.3 ? pick(SPECIAL_KEYS) + text(2) : text(6);
        entries.push([key, text(8)]);
      }
      const url = new URL({
        protocol: pick(PROTOCOLS),
        username: next() < 0.5 ? '' : text(4),
        password: next() < 0.5 ? '' : text(4),
        host: pick(HOSTS),
        port: pick(PORTS),
        path: text(6),
        parameters: entries,
      });
      const back = URL.parse(url.toString());
      if (!back.equals(url)) {
        expect({ string: url.toString(), parsed: params(back) }).toEqual({ string: url.toString(), parsed: params(url) });
      }
      expect(back.equals(url)).toBe(true);
      expect(URL.parse(back.toString()).equals(url)).toBe(true);
    }
  });
});

describe('URL constructor', () => {
  it('defaults every component', () => {
    const url = new URL();
    expect([url.protocol, url.username, url.password, url.host, url.port, url.path]).toEqual(['', '', '', '', 0, '']);
    expect(url.toString()).toBe('');
  });

  it('drops leading "/" from the path and brackets from the host', () => {
    const url = new URL({ protocol: 'p', host: '[::1]', path: '//a/b' });
    expect([url.host, url.path]).toEqual(['::1', 'a/b']);
  });

  it('accepts parameters as a record, a map or entries, dropping empty keys', () => {
    const expected = { a: '1', b: '' };
    expect(params(new URL({ parameters: { a: '1', b: '', '': 'x' } }))).toEqual(expected);
    expect(params(new URL({ parameters: new Map([['a', '1'], ['b', '']]) }))).toEqual(expected);
    expect(params(new URL({ parameters: [['a', '1'], ['b', '']] }))).toEqual(expected);
  });

  it('copies a map given to the constructor, and shares the parameter table across its own edits', () => {
    const source = new Map([['a', '1']]);
    const url = new URL({ parameters: source });
    source.set('a', '2');
    expect(url.getParameter('a')).toBe('1');
    expect(new URL({ host: 'x', parameters: url.parameters }).parameters).toEqual(url.parameters);
    expect(url.withHost('y').parameters).toBe(url.parameters);
    expect(url.withPort(1).withPath('p').parameters).toBe(url.parameters);
  });

  it.each([
    [{ protocol: 'a:b' }, 'protocol "a:b"'],
    [{ protocol: 'a b' }, 'protocol "a b"'],
    [{ host: 'h/x' }, 'host "h/x"'],
    [{ host: 'u@h' }, 'host "u@h"'],
    [{ port: 70000 }, 'port 70000'],
    [{ port: 1.5 }, 'port 1.5'],
    [{ port: -1 }, 'port -1'],
  ])('rejects %j', (init, named) => {
    const error = thrown(() => new URL(init), INVALID_URL);
    expect(error.message).toContain(named);
    expect(error.message).toContain('expected');
  });
});

describe('URL parameters', () => {
  const url = URL.parse(
    'p://u:secret@h:1/svc?timeout=1000&ratio=-1.5e2&empty=&bad=abc&space=%205&hex=0x10&huge=1e999' +
      '&on=TRUE&off=False&yes=yes&zero=0&neg=-3',
  );

  it('returns raw values', () => {
    expect(url.getParameter('timeout')).toBe('1000');
    expect(url.getParameter('empty')).toBe('');
    expect(url.getParameter('missing')).toBeUndefined();
  });

  it('returns the string default for missing or empty values', () => {
    expect(url.getParameter('timeout', 'd')).toBe('1000');
    expect(url.getParameter('empty', 'd')).toBe('d');
    expect(url.getParameter('missing', 'd')).toBe('d');
  });

  it('parses numbers, with the default for missing or empty values', () => {
    expect(url.getParameter('timeout', 0)).toBe(1000);
    expect(url.getParameter('timeout', 0)).toBe(1000); // cached
    expect(url.getParameter('ratio', 0)).toBe(-150);
    expect(url.getParameter('empty', 7)).toBe(7);
    expect(url.getParameter('missing', 7)).toBe(7);
  });

  it.each(['bad', 'space', 'hex', 'huge'])('rejects the non-number in %s', (key) => {
    const error = thrown(() => url.getParameter(key, 0), INVALID_PARAMETER);
    expect(error.message).toContain(`"${key}"`);
    expect(error.message).toContain(`"${url.getParameter(key)}"`);
    expect(error.message).toContain('expected a finite decimal number');
    expect(error.message).toContain('p://u:***@h:1/svc');
    expect(error.message).not.toContain('secret');
  });

  it('parses booleans case-insensitively', () => {
    expect(url.getParameter('on', false)).toBe(true);
    expect(url.getParameter('off', true)).toBe(false);
    expect(url.getParameter('empty', true)).toBe(true);
    expect(url.getParameter('missing', false)).toBe(false);
    const error = thrown(() => url.getParameter('yes', false), INVALID_PARAMETER);
    expect(error.message).toContain('"yes"');
    expect(error.message).toContain('"true" or "false"');
  });

  it('returns positive values, else the default', () => {
    expect(url.getPositiveParameter('timeout', 5)).toBe(1000);
    expect(url.getPositiveParameter('zero', 5)).toBe(5);
    expect(url.getPositiveParameter('neg', 5)).toBe(5);
    expect(url.getPositiveParameter('missing', 5)).toBe(5);
  });

  it.each([0, -1])('rejects the default %d of getPositiveParameter', (defaultValue) => {
    const error = thrown(() => url.getPositiveParameter('timeout', defaultValue), INVALID_PARAMETER);
    expect(error.message).toContain('"timeout"');
    expect(error.message).toContain(`${defaultValue}`);
    expect(error.message).toContain('> 0');
  });

  it('tells whether a value is non-empty', () => {
    expect(url.hasParameter('timeout')).toBe(true);
    expect(url.hasParameter('empty')).toBe(false);
    expect(url.hasParameter('missing')).toBe(false);
  });

  it('keeps "__proto__" and friends as plain data', () => {
    const parsed = URL.parse('p://h?__proto__=x&constructor=y&toString=z');
    expect(params(parsed)).toEqual(Object.fromEntries([['__proto__', 'x'], ['constructor', 'y'], ['toString', 'z']]));
    expect(parsed.getParameter('__proto__')).toBe('x');
    expect(parsed.getParameter('hasOwnProperty')).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    const added = new URL({ parameters: Object.fromEntries([['__proto__', 'a']]) }).addParameter('__proto__', 'b');
    expect(added.getParameter('__proto__')).toBe('b');
    expect(Object.getPrototypeOf(added.parameters)).toBe(Map.prototype);
    expect(URL.parse(added.toString()).equals(added)).toBe(true);
  });
});

describe('URL method parameters', () => {
  it('reads method-level values before plain ones', () => {
    const url = URL.parse('p://h/svc?timeout=1000&sayHello.timeout=3000&sayHello.retries=');
    expect(url.getMethodParameterStrict('sayHello', 'timeout')).toBe('3000');
    expect(url.getMethodParameterStrict('other', 'timeout')).toBeUndefined();
    expect(url.getMethodParameter('sayHello', 'timeout')).toBe('3000');
    expect(url.getMethodParameter('other', 'timeout')).toBe('1000');
    expect(url.getMethodParameter('sayHello', 'retries')).toBeUndefined();
    expect(url.getMethodParameter('sayHello', 'retries', 2)).toBe(2);
    expect(url.getMethodParameter('sayHello', 'timeout', 0)).toBe(3000);
    expect(url.getMethodParameter('other', 'timeout', 0)).toBe(1000);
    expect(url.getMethodParameter('other', 'missing', 'd')).toBe('d');
  });

  it('types method values and names method and key in errors', () => {
    const url = URL.parse('p://h/svc?m.async=TRUE&m.timeout=soon&m.flag=maybe');
    expect(url.getMethodParameter('m', 'async', false)).toBe(true);
    const error = thrown(() => url.getMethodParameter('m', 'timeout', 0), INVALID_PARAMETER);
    expect(error.message).toContain('"timeout"');
    expect(error.message).toContain('"m"');
    expect(error.message).toContain('"soon"');
    thrown(() => url.getMethodParameter('m', 'flag', true), INVALID_PARAMETER);
  });

  it('indexes every dotted key at its first dot', () => {
    const url = URL.parse('p://h?tps.interval=100&a.b.c=v');
    expect(url.getMethodParameterStrict('tps', 'interval')).toBe('100');
    expect(url.getMethodParameterStrict('a', 'b.c')).toBe('v');
    expect(url.getMethodParameterStrict('a.b', 'c')).toBeUndefined();
    expect(url.getAnyMethodParameter('interval')).toBe('100');
  });

  it('restricts strict lookups to "methods" list elements, not substrings', () => {
    const url = URL.parse('p://h?methods=sayHelloWorld&sayHello.timeout=5&sayHelloWorld.timeout=7&timeout=1');
    expect(url.getMethodParameterStrict('sayHello', 'timeout')).toBeUndefined();
    expect(url.getMethodParameter('sayHello', 'timeout')).toBe('1');
    expect(url.getMethodParameterStrict('sayHelloWorld', 'timeout')).toBe('7');
    expect(url.hasMethodParameter('sayHello', 'timeout')).toBe(false);
  });

  it('splits "methods" with the comma pattern and trims', () => {
    const url = URL.parse('p://h?methods=%20a%20,%20b,,c%20&c.timeout=3&b.timeout=2');
    expect(url.getMethodParameterStrict('c', 'timeout')).toBe('3');
    expect(url.getMethodParameterStrict('b', 'timeout')).toBe('2');
    expect(url.getMethodParameterStrict('', 'timeout')).toBeUndefined();
  });

  it('does not restrict when "methods" is empty', () => {
    expect(URL.parse('p://h?methods=&m.timeout=3').getMethodParameterStrict('m', 'timeout')).toBe('3');
  });

  it('gets any method value in "methods" order, else insertion order', () => {
    expect(URL.parse('p://h?methods=b,a&a.timeout=1&b.timeout=2').getAnyMethodParameter('timeout')).toBe('2');
    expect(URL.parse('p://h?methods=c&a.timeout=1').getAnyMethodParameter('timeout')).toBeUndefined();
    expect(URL.parse('p://h?z.timeout=&b.timeout=2&a.timeout=1').getAnyMethodParameter('timeout')).toBe('2');
    expect(URL.parse('p://h?timeout=1').getAnyMethodParameter('timeout')).toBeUndefined();
  });

  it('answers hasMethodParameter in its three forms', () => {
    const url = URL.parse('p://h?sayHello.timeout=3&sayHello.retries=&a.b.c=1');
    expect(url.hasMethodParameter('sayHello', 'timeout')).toBe(true);
    expect(url.hasMethodParameter('sayHello', 'retries')).toBe(false);
    expect(url.hasMethodParameter('other', 'timeout')).toBe(false);
    expect(url.hasMethodParameter(undefined, 'timeout')).toBe(true);
    expect(url.hasMethodParameter(undefined, 'retries')).toBe(true);
    expect(url.hasMethodParameter(undefined, 'c')).toBe(true);
    expect(url.hasMethodParameter(undefined, 'other')).toBe(false);
    expect(url.hasMethodParameter('sayHello')).toBe(true);
    expect(url.hasMethodParameter('a')).toBe(true);
    expect(url.hasMethodParameter('say')).toBe(false);
    expect(url.hasMethodParameter(undefined)).toBe(false);
  });

  it('returns positive method values, else the default', () => {
    const url = URL.parse('p://h?m.weight=0&n.weight=5&weight=-1');
    expect(url.getMethodPositiveParameter('m', 'weight', 100)).toBe(100);
    expect(url.getMethodPositiveParameter('n', 'weight', 100)).toBe(5);
    expect(url.getMethodPositiveParameter('x', 'weight', 100)).toBe(100);
    expect(thrown(() => url.getMethodPositiveParameter('n', 'weight', 0), INVALID_PARAMETER).message).toContain('"n"');
  });

  it('builds method lookups per parameter set', () => {
    const url = URL.parse('p://h?m.timeout=1');
    expect(url.getMethodParameter('m', 'timeout')).toBe('1');
    const edited = url.addParameter('m.timeout', 2).addParameter('methods', 'm');
    expect(edited.getMethodParameter('m', 'timeout')).toBe('2');
    expect(url.getMethodParameter('m', 'timeout')).toBe('1');
  });
});

describe('URL service keys', () => {
  const url = URL.parse('dubbo://h:1/path.Svc?interface=a.B&group=g&version=1.0&application=app&side=consumer');

  it('derives interface, group, version, application, side and category', () => {
    expect(url.getServiceInterface()).toBe('a.B');
    expect(URL.parse('dubbo://h/path.Svc').getServiceInterface()).toBe('path.Svc');
    expect(URL.parse('dubbo://h').getServiceInterface()).toBeUndefined();
    expect([url.getGroup(), url.getVersion(), url.getApplication(), url.getSide()]).toEqual(['g', '1.0', 'app', 'consumer']);
    expect(url.getCategory()).toBeUndefined();
    expect(url.getCategory('providers')).toBe('providers');
    expect(URL.parse('p://h?category=routers').getCategory('providers')).toBe('routers');
  });

  it('builds the keys of §2.4', () => {
    expect(url.getServiceKey()).toBe('g/a.B:1.0');
    expect(url.getServiceKey()).toBe('g/a.B:1.0');
    expect(url.getPathKey()).toBe('g/path.Svc:1.0');
    expect(url.getDisplayServiceKey()).toBe('a.B:1.0');
    expect(url.getColonSeparatedKey()).toBe('a.B:1.0:g');
    expect(url.getProtocolServiceKey()).toBe('g/a.B:1.0:dubbo');
    expect(url.withProtocol('consumer').getProtocolServiceKey()).toBe('g/a.B:1.0');
  });

  it('leaves out empty group and version and keeps empty colon slots', () => {
    const plain = URL.parse('tri://h/a.B?group=&version=');
    expect(plain.getServiceKey()).toBe('a.B');
    expect(plain.getDisplayServiceKey()).toBe('a.B');
    expect(plain.getColonSeparatedKey()).toBe('a.B::');
    expect(plain.getProtocolServiceKey()).toBe('a.B:tri');
  });

  it('has no service key without interface and path', () => {
    const none = URL.parse('p://h?group=g');
    expect(none.getServiceKey()).toBeUndefined();
    expect(none.getPathKey()).toBeUndefined();
    expect(none.getDisplayServiceKey()).toBeUndefined();
    expect(none.getProtocolServiceKey()).toBeUndefined();
    expect(none.getColonSeparatedKey()).toBe('::g');
  });

  it('builds keys statically', () => {
    expect(URL.buildKey('a.B')).toBe('a.B');
    expect(URL.buildKey('a.B', 'g')).toBe('g/a.B');
    expect(URL.buildKey('a.B', '', '1')).toBe('a.B:1');
    expect(URL.buildKey('a.B', 'g', '1')).toBe('g/a.B:1');
  });
});

describe('URL immutable edits', () => {
  const base = URL.parse('dubbo://h:1/svc?a=1&b=2&empty=');

  it('adds a parameter, returning a new URL', () => {
    const edited = base.addParameter('c', 3);
    expect(edited).not.toBe(base);
    expect(edited.toString()).toBe('dubbo://h:1/svc?a=1&b=2&empty=&c=3');
    expect(base.getParameter('c')).toBeUndefined();
    expect(base.addParameter('a', true).toString()).toBe('dubbo://h:1/svc?a=true&b=2&empty=');
  });

  it('returns this for an empty key or value, or an unchanged value', () => {
    expect(base.addParameter('a', '1')).toBe(base);
    expect(base.addParameter('a', 1)).toBe(base);
    expect(base.addParameter('a', '')).toBe(base);
    expect(base.addParameter('a', undefined)).toBe(base);
    expect(base.addParameter('', 'x')).toBe(base);
  });

  it('adds several parameters from a record or a map', () => {
    expect(params(base.addParameters({ a: 9, c: false, d: '', e: undefined }))).toEqual({
      a: '9', b: '2', empty: '', c: 'false',
    });
    expect(params(base.addParameters(new Map([['c', 'x']])))).toEqual({ a: '1', b: '2', empty: '', c: 'x' });
    expect(base.addParameters({ a: '1', b: 2 })).toBe(base);
  });

  it('adds only absent (or empty) parameters', () => {
    expect(base.addParameterIfAbsent('a', '9')).toBe(base);
    expect(base.addParameterIfAbsent('empty', 'x').getParameter('empty')).toBe('x');
    expect(base.addParameterIfAbsent('c', 'x').getParameter('c')).toBe('x');
    expect(params(base.addParametersIfAbsent({ a: '9', c: '3', empty: 'e' }))).toEqual({
      a: '1', b: '2', empty: 'e', c: '3',
    });
    expect(base.addParametersIfAbsent({ a: '9' })).toBe(base);
  });

  it('removes and clears parameters', () => {
    expect(params(base.removeParameter('a'))).toEqual({ b: '2', empty: '' });
    expect(base.removeParameter('missing')).toBe(base);
    expect(params(base.removeParameters('a', 'b', 'missing'))).toEqual({ empty: '' });
    expect(base.removeParameters()).toBe(base);
    expect(base.clearParameters().toString()).toBe('dubbo://h:1/svc');
    const cleared = base.clearParameters();
    expect(cleared.clearParameters()).toBe(cleared);
    expect(params(base)).toEqual({ a: '1', b: '2', empty: '' });
  });

  it('replaces components, sharing the parameter map', () => {
    const edited = base
      .withProtocol('tri')
      .withUsername('u')
      .withPassword('p')
      .withHost('::1')
      .withPort(50051)
      .withPath('/other');
    expect(edited.toString()).toBe('tri://u:p@[::1]:50051/other?a=1&b=2&empty=');
    expect(edited.parameters).toBe(base.parameters);
    expect(base.toString()).toBe('dubbo://h:1/svc?a=1&b=2&empty=');
  });

  it('returns this when a component is unchanged', () => {
    expect(base.withProtocol('dubbo')).toBe(base);
    expect(base.withHost('h')).toBe(base);
    expect(base.withPort(1)).toBe(base);
    expect(base.withPath('/svc')).toBe(base);
    expect(base.withUsername('')).toBe(base);
    expect(base.withPassword('')).toBe(base);
    expect(base.withAddress('h:1')).toBe(base);
    expect(base.withAddress('h')).toBe(base);
  });

  it('replaces the address, keeping the port when none is given', () => {
    expect(base.withAddress('x:2').getAddress()).toBe('x:2');
    expect(base.withAddress('x').getAddress()).toBe('x:1');
    expect(base.withAddress('[::1]:3').getAddress()).toBe('[::1]:3');
    expect(base.withAddress('[::1]').getAddress()).toBe('[::1]:1');
    expect(thrown(() => base.withAddress('x:y'), INVALID_URL).message).toContain('"x:y"');
  });

  it('validates replaced components', () => {
    thrown(() => base.withPort(65536), INVALID_URL);
    thrown(() => base.withHost('a/b'), INVALID_URL);
    thrown(() => base.withProtocol('a:b'), INVALID_URL);
  });
});

describe('URL.equals', () => {
  it('compares components and parameters regardless of order', () => {
    const a = URL.parse('p://u:w@h:1/x?a=1&b=2');
    expect(a.equals(URL.parse('p://u:w@h:1/x?b=2&a=1'))).toBe(true);
    expect(a.equals(a)).toBe(true);
    expect(a.equals(URL.parse('p://u:w@h:1/x?a=1&b=3'))).toBe(false);
    expect(a.equals(URL.parse('p://u:w@h:1/x?a=1'))).toBe(false);
    expect(a.equals(URL.parse('p://u:w@h:1/x?a=1&c=2'))).toBe(false);
    expect(a.equals(a.withPort(2))).toBe(false);
    expect(a.equals(a.withPassword('z'))).toBe(false);
    expect(a.equals(null)).toBe(false);
    expect(a.equals(undefined)).toBe(false);
  });
});
