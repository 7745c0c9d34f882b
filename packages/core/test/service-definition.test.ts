import { describe, expect, expectTypeOf, it } from 'vitest';

import {
  defineService,
  ExtensionError,
  ExtensionErrorCode,
  ServiceDefinition,
  type ArgsOf,
  type CallableProxy,
  type ReturnOf,
  type ServiceImplementation,
  type ServiceProxy,
  type TypeOf,
} from '@weft/core';

class User {
  constructor(
    readonly name: string,
    readonly age: number,
  ) {}
}

class NotFound extends Error {
  override name = 'NotFound';
}

const Users = defineService('org.acme.UserService', {
  greet: { args: [String, Number], returns: String },
  find: { args: [String], returns: User, throws: [NotFound] },
  list: { returns: [User] },
  touch: { args: [User] },
  count: { returns: Number },
  flags: { args: [Boolean], returns: Boolean },
  when: { returns: Date },
  tags: { returns: Set },
  index: { returns: Map },
  dates: { args: [[Date]], returns: [Date] },
  raw: { returns: Object },
  nothing: { returns: null },
});

/** Expects `fn` to throw an ExtensionError with `code` whose message contains every fragment. */
function expectExtensionError(fn: () => unknown, code: ExtensionErrorCode, ...fragments: string[]): ExtensionError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ExtensionError);
  const error = caught as ExtensionError;
  expect(error.code).toBe(code);
  for (const fragment of fragments) expect(error.message).toContain(fragment);
  return error;
}

describe('defineService: validation', () => {
  it.each(['', 'org..acme.Greeter', '.org.acme', 'org.acme.', '1org.acme', 'org.acme/Greeter', 'org.acme Greeter', 'org.acme.Greeter-v2', 'org.1acme'])(
    'rejects the interface name %j',
    (name) => {
      expectExtensionError(() => defineService(name, { m: {} }), ExtensionErrorCode.INVALID_PARAMETER, JSON.stringify(name), 'not a valid interface name');
    },
  );

  it('rejects a non-string interface name at runtime', () => {
    const name: unknown = 42;
    expectExtensionError(() => defineService(name as string, {}), ExtensionErrorCode.INVALID_PARAMETER, 'not a valid interface name');
  });

  it.each(['Greeter', 'org.acme.Greeter', '_x.$y.z9', 'a'])('accepts the interface name %j', (name) => {
    expect(defineService(name, {}).name).toBe(name);
  });

  it.each(['$call', '$service', '$', '$x'])('rejects the reserved method name %j', (method) => {
    expectExtensionError(
      () => defineService('org.acme.Greeter', { [method]: {} }),
      ExtensionErrorCode.INVALID_PARAMETER,
      'org.acme.Greeter',
      JSON.stringify(method),
      'reserved',
    );
  });

  it.each(['say-hello', '1st', 'say hello', '', 'a.b', 'é'])('rejects the non-identifier method name %j', (method) => {
    expectExtensionError(
      () => defineService('org.acme.Greeter', { [method]: {} }),
      ExtensionErrorCode.INVALID_PARAMETER,
      JSON.stringify(method),
      'not an identifier',
    );
  });

  it('accepts identifier method names with digits, underscores and an inner $', () => {
    const service = defineService('org.acme.Ok', { _private: {}, get2: {}, a$b: {} });
    expect(service.methodNames).toEqual(['_private', 'get2', 'a$b']);
  });
});

describe('defineService: descriptors', () => {
  it('keeps the name, the declared methods and their declaration order', () => {
    expect(Users).toBeInstanceOf(ServiceDefinition);
    expect(Users.name).toBe('org.acme.UserService');
    expect(Users.methodNames).toEqual(['greet', 'find', 'list', 'touch', 'count', 'flags', 'when', 'tags', 'index', 'dates', 'raw', 'nothing']);
    expect(Users.methods.greet.args).toEqual([String, Number]);
  });

  it('resolves each method to a frozen descriptor with defaults for returns and throws', () => {
    const greet = Users.getMethod('greet');
    expect(greet).toEqual({ name: 'greet', args: [String, Number], returns: String, throws: [], safe: false });
    expect(Object.isFrozen(greet)).toBe(true);
    expect(Users.getMethod('find')).toEqual({ name: 'find', args: [String], returns: User, throws: [NotFound], safe: false });
    expect(Users.getMethod('list')?.returns).toEqual([User]);
    // No `args`: undefined (no realisation of arguments); no `returns`: null (void).
    expect(Users.getMethod('count')).toEqual({ name: 'count', args: undefined, returns: Number, throws: [], safe: false });
    expect(Users.getMethod('touch')?.returns).toBeNull();
    expect(Users.getMethod('nothing')?.returns).toBeNull();
    expect(Users.getMethod('missing')).toBeUndefined();
    expect(Users.methodDescriptors.size).toBe(12);
  });

  it('freezes the definition itself', () => {
    expect(Object.isFrozen(Users)).toBe(true);
    expect(() => {
      (Users as { name: string }).name = 'other';
    }).toThrow(TypeError);
  });

  it('a service with no methods is valid and has none', () => {
    const empty = defineService('org.acme.Empty', {});
    expect(empty.methodNames).toEqual([]);
    expect(empty.methodDescriptors.size).toBe(0);
  });

  it('built with `new ServiceDefinition` behaves like defineService', () => {
    const direct = new ServiceDefinition('org.acme.Direct', { ping: { returns: String } });
    expect(direct.getMethod('ping')).toEqual({ name: 'ping', args: undefined, returns: String, throws: [], safe: false });
    expectExtensionError(() => new ServiceDefinition('bad name', {}), ExtensionErrorCode.INVALID_PARAMETER, 'bad name');
  });
});

describe('defineService: safe methods', () => {
  it('records safe: true (a method without side effects) and refuses a value that is not a boolean', () => {
    const Admin = defineService('org.acme.Admin', { status: { returns: String, safe: true }, purge: {} });
    expect(Admin.getMethod('status')?.safe).toBe(true);
    expect(Admin.getMethod('purge')?.safe).toBe(false);
    const spec: unknown = { safe: 'yes' };
    expectExtensionError(
      () => defineService('org.acme.Admin', { status: spec as { safe: boolean } }),
      ExtensionErrorCode.INVALID_PARAMETER,
      'defineService("org.acme.Admin"): status() safe "yes" is not a boolean (declare safe: true for a method without side effects).',
    );
  });
});

describe('defineService: type inference', () => {
  type Proxy = ServiceProxy<typeof Users.methods>;
  type Impl = ServiceImplementation<typeof Users.methods>;

  it('maps descriptors to TypeScript types', () => {
    expectTypeOf<TypeOf<StringConstructor>>().toEqualTypeOf<string>();
    expectTypeOf<TypeOf<NumberConstructor>>().toEqualTypeOf<number>();
    expectTypeOf<TypeOf<BooleanConstructor>>().toEqualTypeOf<boolean>();
    expectTypeOf<TypeOf<DateConstructor>>().toEqualTypeOf<Date>();
    expectTypeOf<TypeOf<MapConstructor>>().toEqualTypeOf<Map<unknown, unknown>>();
    expectTypeOf<TypeOf<SetConstructor>>().toEqualTypeOf<Set<unknown>>();
    expectTypeOf<TypeOf<ObjectConstructor>>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<TypeOf<ArrayConstructor>>().toEqualTypeOf<unknown[]>();
    expectTypeOf<TypeOf<typeof User>>().toEqualTypeOf<User>();
    expectTypeOf<TypeOf<readonly [typeof User]>>().toEqualTypeOf<User[]>();
    expectTypeOf<TypeOf<readonly [readonly [NumberConstructor]]>>().toEqualTypeOf<number[][]>();
    expectTypeOf<TypeOf<null>>().toEqualTypeOf<void>();
  });

  it('proxy methods return promises of the declared return types', () => {
    expectTypeOf<ReturnType<Proxy['greet']>>().toEqualTypeOf<Promise<string>>();
    expectTypeOf<ReturnType<Proxy['find']>>().toEqualTypeOf<Promise<User>>();
    expectTypeOf<ReturnType<Proxy['list']>>().toEqualTypeOf<Promise<User[]>>();
    expectTypeOf<ReturnType<Proxy['touch']>>().toEqualTypeOf<Promise<void>>();
    expectTypeOf<ReturnType<Proxy['nothing']>>().toEqualTypeOf<Promise<void>>();
    expectTypeOf<ReturnType<Proxy['count']>>().toEqualTypeOf<Promise<number>>();
    expectTypeOf<ReturnType<Proxy['flags']>>().toEqualTypeOf<Promise<boolean>>();
    expectTypeOf<ReturnType<Proxy['when']>>().toEqualTypeOf<Promise<Date>>();
    expectTypeOf<ReturnType<Proxy['tags']>>().toEqualTypeOf<Promise<Set<unknown>>>();
    expectTypeOf<ReturnType<Proxy['index']>>().toEqualTypeOf<Promise<Map<unknown, unknown>>>();
    expectTypeOf<ReturnType<Proxy['dates']>>().toEqualTypeOf<Promise<Date[]>>();
    expectTypeOf<ReturnType<Proxy['raw']>>().toEqualTypeOf<Promise<Record<string, unknown>>>();
    expectTypeOf<ReturnOf<typeof Users.methods.greet>>().toEqualTypeOf<string>();
  });

  it('infers argument tuples from `args`', () => {
    expectTypeOf<Parameters<Proxy['greet']>>().toEqualTypeOf<[string, number]>();
    expectTypeOf<Parameters<Proxy['find']>>().toEqualTypeOf<[string]>();
    expectTypeOf<Parameters<Proxy['touch']>>().toEqualTypeOf<[User]>();
    expectTypeOf<Parameters<Proxy['dates']>>().toEqualTypeOf<[Date[]]>();
    expectTypeOf<ArgsOf<typeof Users.methods.flags>>().toEqualTypeOf<[boolean]>();
    // Without `args` the arguments are not typed.
    expectTypeOf<Parameters<Proxy['count']>>().toEqualTypeOf<unknown[]>();
  });

  it('proxy has exactly the declared methods, readonly, plus $call and $service on the callable proxy', () => {
    expectTypeOf<keyof Proxy>().toEqualTypeOf<
      'greet' | 'find' | 'list' | 'touch' | 'count' | 'flags' | 'when' | 'tags' | 'index' | 'dates' | 'raw' | 'nothing'
    >();
    type Callable = CallableProxy<typeof Users.methods>;
    expectTypeOf<Callable['$service']>().toEqualTypeOf<ServiceDefinition<typeof Users.methods>>();
    expectTypeOf<ReturnType<Callable['greet']>>().toEqualTypeOf<Promise<string>>();
    const check = (proxy: Callable) => {
      expectTypeOf(proxy.$call('greet', ['ann', 3])).toEqualTypeOf<Promise<string>>();
      expectTypeOf(proxy.$call('list', [], { timeout: 10 })).toEqualTypeOf<Promise<User[]>>();
      // @ts-expect-error -- wrong argument types for greet
      void proxy.$call('greet', [1, 'x']);
      // @ts-expect-error -- no such method
      void proxy.$call('nope', []);
    };
    expect(typeof check).toBe('function');
  });

  it('a wrong call is a type error', () => {
    const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
    const check = (greeter: ServiceProxy<typeof Greeter.methods>) => {
      expectTypeOf(greeter.sayHello('ann')).toEqualTypeOf<Promise<string>>();
      // @ts-expect-error -- a number is not a string
      void greeter.sayHello(1);
      // @ts-expect-error -- missing argument
      void greeter.sayHello();
      // @ts-expect-error -- too many arguments
      void greeter.sayHello('a', 'b');
      // @ts-expect-error -- undeclared method
      void greeter.sayGoodbye('ann');
      // @ts-expect-error -- proxy methods are readonly
      greeter.sayHello = async () => 'x';
    };
    expect(typeof check).toBe('function');
  });

  it('implementations may answer with a value or a promise, with typed arguments', () => {
    expectTypeOf<Impl['greet']>().toEqualTypeOf<(...args: [string, number]) => string | Promise<string>>();
    expectTypeOf<Impl['find']>().returns.toEqualTypeOf<User | Promise<User>>();
    expectTypeOf<Impl['touch']>().returns.toEqualTypeOf<void | Promise<void>>();
    const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String }, list: { returns: [User] } });
    const sync: ServiceImplementation<typeof Greeter.methods> = {
      sayHello: (name) => {
        expectTypeOf(name).toEqualTypeOf<string>();
        return `hi ${name}`;
      },
      list: () => [new User('a', 1)],
    };
    const async: ServiceImplementation<typeof Greeter.methods> = {
      sayHello: async (name) => `hi ${name}`,
      list: async () => [],
    };
    const wrong: ServiceImplementation<typeof Greeter.methods> = {
      // @ts-expect-error -- must return a string
      sayHello: (name: string) => name.length,
      list: () => [],
    };
    // @ts-expect-error -- missing method
    const missing: ServiceImplementation<typeof Greeter.methods> = { sayHello: (name: string) => name };
    expect(sync.sayHello('ann')).toBe('hi ann');
    expect(sync.list()).toEqual([new User('a', 1)]);
    expect(async.sayHello('bo')).toBeInstanceOf(Promise);
    expect(typeof wrong.sayHello).toBe('function');
    expect(typeof missing.sayHello).toBe('function');
  });
});

describe('defineService: idempotent', () => {
  it('keeps idempotent: false on the descriptor (clusters read it) and refuses a non-boolean', () => {
    const Wallet = defineService('org.acme.Wallet', { pay: { args: [Number], idempotent: false }, balance: { returns: Number } });
    expect(Wallet.getMethod('pay')?.idempotent).toBe(false);
    expect(Wallet.getMethod('balance')?.idempotent).toBeUndefined();
    expect(() => defineService('org.acme.Bad', { pay: { idempotent: 1 as unknown as boolean } })).toThrow(
      'defineService("org.acme.Bad"): pay(): idempotent must be true or false, got 1.',
    );
  });
});
