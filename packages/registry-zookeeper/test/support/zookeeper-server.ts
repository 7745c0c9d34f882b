// A real ZooKeeper server for tests and benchmarks: Debian's `zookeeper` package (or a ZOOKEEPER_HOME tarball),
// started on loopback with a temporary data directory and a free port, checked with `ruok`, stopped by PID.
// Self-contained (Node built-ins only) so other packages' tests can reuse it as is.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Options of {@link ZookeeperServer.start}. */
export interface ZookeeperServerOptions {
  /** Client port on 127.0.0.1. @defaultValue a free port */
  readonly port?: number;
  /** ZooKeeper's tick in ms; sessions are bounded by 2 and 20 ticks unless set below. @defaultValue 500 */
  readonly tickTime?: number;
  /** Smallest session timeout the server grants, ms. @defaultValue 2 × tickTime */
  readonly minSessionTimeout?: number;
  /** Largest session timeout the server grants, ms. @defaultValue 60000 */
  readonly maxSessionTimeout?: number;
  /** How long to wait for `ruok` → `imok`, ms. @defaultValue 30000 */
  readonly startTimeout?: number;
}

/** Where ZooKeeper's classes are and how to run them. */
export interface ZookeeperInstallation {
  readonly java: string;
  readonly classpath: string;
  /** `zkCli.sh`, when installed. */
  readonly cli: string | undefined;
}

const DEBIAN_JAR = '/usr/share/java/zookeeper.jar';
const DEBIAN_CONF = '/etc/zookeeper/conf';
const DEBIAN_CLI = '/usr/share/zookeeper/bin/zkCli.sh';
const DEBIAN_ENV = '/usr/share/zookeeper/bin/zkEnv.sh';
/** An SLF4J binding, so the server's log lands in the log file (without one SLF4J logs nothing). */
const SLF4J_SIMPLE = '/usr/share/java/slf4j-simple.jar';

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Finds ZooKeeper: `ZOOKEEPER_HOME` (a tarball: `lib/*.jar`, `conf/`, `bin/zkCli.sh`), else Debian's package, whose
 * classpath is what `zkEnv.sh` says (`/etc/zookeeper/conf:/usr/share/java/zookeeper.jar`; the jar's manifest
 * `Class-Path` brings netty, slf4j, jute and the rest). `undefined` when neither is installed.
 */
export function findZookeeper(): ZookeeperInstallation | undefined {
  const java = findJava();
  if (java === undefined) return undefined;
  const home = process.env['ZOOKEEPER_HOME'];
  if (home !== undefined && existsSync(join(home, 'lib'))) {
    const jars = readdirSync(join(home, 'lib'))
      .filter((f) => f.endsWith('.jar'))
      .map((f) => join(home, 'lib', f));
    const cli = join(home, 'bin', 'zkCli.sh');
    return { java, classpath: [join(home, 'conf'), ...jars].join(delimiter), cli: existsSync(cli) ? cli : undefined };
  }
  if (!existsSync(DEBIAN_JAR)) return undefined;
  const classpath = debianClasspath();
  if (existsSync(SLF4J_SIMPLE)) classpath.push(SLF4J_SIMPLE);
  return { java, classpath: classpath.join(delimiter), cli: existsSync(DEBIAN_CLI) ? DEBIAN_CLI : undefined };
}

function debianClasspath(): string[] {
  try {
    const env = readFileSync(DEBIAN_ENV, 'utf8');
    const line = /^CLASSPATH="?([^"\n]+)"?/m.exec(env);
    if (line?.[1] !== undefined) {
      const entries = line[1].split(':').filter((e) => e !== '' && !e.includes('$'));
      if (entries.includes(DEBIAN_JAR)) return entries;
    }
  } catch {
    // fall through to the package's documented layout
  }
  return [...(existsSync(DEBIAN_CONF) ? [DEBIAN_CONF] : []), DEBIAN_JAR];
}

function findJava(): string | undefined {
  const candidates = [
    ...(process.env['JAVA_HOME'] ? [join(process.env['JAVA_HOME'], 'bin', 'java')] : []),
    ...(process.env['PATH'] ?? '').split(delimiter).map((dir) => join(dir, 'java')),
    '/usr/bin/java',
  ];
  return candidates.find((c) => c !== '' && existsSync(c));
}

/** A free TCP port on 127.0.0.1. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Sends a four-letter command and returns the answer ('' when the server does not answer). */
export function fourLetterWord(port: number, word: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect({ host: '127.0.0.1', port });
    const done = (): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, done);
    socket.on('connect', () => socket.write(word));
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', done);
    socket.on('error', done);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One standalone ZooKeeper server on 127.0.0.1, for tests.
 *
 * @example
 * ```ts
 * const zk = await ZookeeperServer.start();
 * // … zookeeper://127.0.0.1:${zk.port} …
 * await zk.stop();     // SIGTERM, then SIGKILL: data kept
 * await zk.restart();  // same port, same data
 * await zk.dispose();  // stop and delete the data
 * ```
 */
export class ZookeeperServer {
  private process: ChildProcess | undefined;

  private constructor(
    /** The client port on 127.0.0.1. */
    readonly port: number,
    /** Temporary directory holding `zoo.cfg`, `data/` and `zookeeper.log`. */
    readonly directory: string,
    private readonly installation: ZookeeperInstallation,
    private readonly startTimeout: number,
  ) {}

  /** Whether ZooKeeper (and Java) is installed here. */
  static isInstalled(): boolean {
    return findZookeeper() !== undefined;
  }

  /** Starts a server; resolves when it answers `ruok` with `imok`. */
  static async start(options: ZookeeperServerOptions = {}): Promise<ZookeeperServer> {
    const installation = findZookeeper();
    if (installation === undefined) {
      throw new Error('ZooKeeper is not installed: run scripts/install-zookeeper.sh (Debian package "zookeeper"), or set ZOOKEEPER_HOME.');
    }
    const port = options.port ?? (await freeLoopbackPort());
    const directory = mkdtempSync(join(tmpdir(), 'weft-zookeeper-'));
    mkdirSync(join(directory, 'data'));
    const tickTime = options.tickTime ?? 500;
    writeFileSync(
      join(directory, 'zoo.cfg'),
      [
        `tickTime=${tickTime}`,
        `dataDir=${join(directory, 'data')}`,
        `clientPort=${port}`,
        'clientPortAddress=127.0.0.1',
        'admin.enableServer=false',
        '4lw.commands.whitelist=ruok,stat',
        `minSessionTimeout=${options.minSessionTimeout ?? 2 * tickTime}`,
        `maxSessionTimeout=${options.maxSessionTimeout ?? 60_000}`,
        'maxClientCnxns=0',
        '',
      ].join('\n'),
    );
    const server = new ZookeeperServer(port, directory, installation, options.startTimeout ?? 30_000);
    try {
      await server.launch();
    } catch (error) {
      await server.dispose();
      throw error;
    }
    return server;
  }

  /** `127.0.0.1:<port>`. */
  get connectString(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** `zookeeper://127.0.0.1:<port>`. */
  get url(): string {
    return `zookeeper://127.0.0.1:${this.port}`;
  }

  /** The server's log file. */
  get logFile(): string {
    return join(this.directory, 'zookeeper.log');
  }

  /** The server process id, while running. */
  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Whether the server process is running. */
  isRunning(): boolean {
    return this.process !== undefined && this.process.exitCode === null && this.process.signalCode === null;
  }

  /** `zkCli.sh` of the installation, when present. */
  get cli(): string | undefined {
    return this.installation.cli;
  }

  /** Stops the server by PID: SIGTERM, then SIGKILL after `graceMs`. The data directory is kept. */
  async stop(graceMs = 5000): Promise<void> {
    const child = this.process;
    if (child === undefined) return;
    this.process = undefined;
    if (child.exitCode !== null || child.signalCode !== null) {
      running.delete(child);
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    running.delete(child);
  }

  /** Kills the server by PID with SIGKILL (a crash). The data directory is kept. */
  async kill(): Promise<void> {
    await this.stop(0);
  }

  /** Starts the server again on the same port and data directory (after {@link ZookeeperServer.stop}). */
  async startAgain(): Promise<void> {
    if (this.isRunning()) return;
    await this.launch();
  }

  /** Stops and starts again on the same port and data directory. */
  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  /** Stops the server and deletes its directory. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }

  /** The last lines of the server log (for failure messages). */
  logTail(lines = 40): string {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  private async launch(): Promise<void> {
    installExitHook();
    const log = openSync(this.logFile, 'a');
    const child = spawn(
      this.installation.java,
      [
        '-Xmx256m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-Dzookeeper.jmx.log4j.disable=true',
        '-Dorg.slf4j.simpleLogger.showDateTime=true',
        '-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS',
        '-cp',
        this.installation.classpath,
        'org.apache.zookeeper.server.quorum.QuorumPeerMain',
        join(this.directory, 'zoo.cfg'),
      ],
      { stdio: ['ignore', log, log], detached: false },
    );
    closeSync(log);
    this.process = child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    const deadline = Date.now() + this.startTimeout;
    while (Date.now() < deadline) {
      if (!this.isRunning()) throw new Error(`ZooKeeper exited while starting (port ${this.port}):\n${this.logTail()}`);
      if ((await fourLetterWord(this.port, 'ruok', 500)) === 'imok') return;
      await sleep(100);
    }
    await this.stop();
    throw new Error(`ZooKeeper did not answer "ruok" on port ${this.port} within ${this.startTimeout} ms:\n${this.logTail()}`);
  }
}

/** Kills servers left running when the test process exits (a failed test must not leak a JVM). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}
