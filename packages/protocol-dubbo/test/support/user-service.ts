import { defineService, java, type ServiceImplementation } from '@weft/core';

/** A POJO a Java (or js-to-java) peer knows as `org.acme.User`. */
export class User {
  static readonly javaClass = 'org.acme.User';
  static readonly fields = { id: java.long, name: String, age: java.int };
  id = 0;
  name = '';
  age = 0;
}

/** A business error a Java peer knows as `org.acme.UserNotFoundException`. */
export class UserNotFound extends Error {
  static readonly javaClass = 'org.acme.UserNotFoundException';
  override name = 'UserNotFound';
}

/** The interop service: typed arguments and results as a Java interface declares them. */
export const UserService = defineService('org.acme.UserService', {
  greet: { args: [String], returns: String },
  add: { args: [java.int, java.int], returns: java.int },
  next: { args: [java.long], returns: java.long },
  count: { args: [java.list(String)], returns: java.int },
  total: { args: [java.map(String, java.int)], returns: java.int },
  rename: { args: [User, String], returns: User },
  find: { args: [java.long], returns: User, throws: [UserNotFound] },
  echo: { args: [String], returns: String },
});

export function userServiceImpl(): ServiceImplementation<typeof UserService.methods> {
  return {
    greet: (name) => `hello ${name}`,
    add: (a, b) => a + b,
    next: (n) => (typeof n === 'bigint' ? n + 1n : n + 1),
    count: (list) => list.length,
    total: (map) => [...map.values()].reduce((a, b) => a + b, 0),
    rename: (user, name) => Object.assign(new User(), { id: user.id, name, age: user.age + 1 }),
    find: (id) => {
      throw new UserNotFound(`no user ${String(id)}`);
    },
    echo: (text) => text,
  };
}
