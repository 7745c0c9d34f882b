// apache-dubbo-js (3.0.0-rc6, hessian.js + js-to-java) calling org.acme.UserService, discovered through ZooKeeper:
//   node dubbo-js-consumer.cjs <zk host:port> [calls]
// Prints one JSON line: each call's { res } or { err: { name, message } }, then exits. With a number of calls, runs
// the echo bench instead (64 in flight) and prints { callsPerSecond }.
const { Dubbo, java, setting } = require('apache-dubbo-js');

const [zk, benchCalls] = process.argv.slice(2);
const IFACE = 'org.acme.UserService';
const dubbo = new Dubbo({
  application: { name: 'dubbo-js-consumer' },
  register: zk,
  dubboSetting: setting.match([IFACE], { version: '0.0.0' }),
  service: {
    users: (d) =>
      d.proxyService({
        dubboInterface: IFACE,
        timeout: 5,
        methods: {
          greet: (name) => [java.String(name)],
          add: (a, b) => [java.int(a), java.int(b)],
          next: (n) => [java.long(n)],
          count: (list) => [java.List(list.map((s) => java.String(s)))],
          total: (map) => [java.Map(map)],
          rename: (user, name) => [java.combine('org.acme.User', { id: java.long(user.id), name: java.String(user.name), age: java.int(user.age) }), java.String(name)],
          find: (id) => [java.long(id)],
          echo: (text) => [java.String(text)],
        },
      }),
  },
});

const outcome = (r) => (r.err ? { err: { name: r.err.name, message: String(r.err.message).split('\n')[0] } } : { res: r.res });

(async () => {
  await dubbo.ready();
  const users = dubbo.service.users;
  if (benchCalls !== undefined) {
    const total = Number(benchCalls);
    // warm-up
    for (let i = 0; i < 2000; i++) await users.echo('x');
    let sent = 0;
    const started = process.hrtime.bigint();
    const worker = async () => {
      while (sent < total) {
        sent++;
        const r = await users.echo('hello');
        if (r.err) throw r.err;
      }
    };
    await Promise.all(Array.from({ length: 64 }, worker));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    process.stdout.write(`${JSON.stringify({ callsPerSecond: total / seconds })}\n`);
    process.exit(0);
  }
  const results = {
    greet: outcome(await users.greet('ann')),
    add: outcome(await users.add(2, 40)),
    next: outcome(await users.next(2 ** 40)),
    count: outcome(await users.count(['a', 'b', 'c'])),
    total: outcome(await users.total({ x: 1, y: 2 })),
    rename: outcome(await users.rename({ id: 7, name: 'bo', age: 30 }, 'bob')),
    find: outcome(await users.find(404)),
  };
  process.stdout.write(`${JSON.stringify(results)}\n`);
  process.exit(0);
})().catch((error) => {
  process.stdout.write(`${JSON.stringify({ fatal: String(error && error.stack ? error.stack : error) })}\n`);
  process.exit(1);
});
