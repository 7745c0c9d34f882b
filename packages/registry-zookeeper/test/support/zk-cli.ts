// Drives ZooKeeper's own `zkCli.sh` as an operator would: one interactive session, commands typed on stdin, the
// session kept open (so `create -e` nodes live) until `close()` ends it. Stopped by PID.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** An interactive `zkCli.sh -server 127.0.0.1:<port>` session. */
export class ZkCliSession {
  private output = '';
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (this.output += chunk));
    child.stderr.on('data', (chunk: string) => (this.output += chunk));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  /** Starts `zkCli.sh -server <connectString>` with commands read from stdin. */
  static open(cli: string, connectString: string): ZkCliSession {
    const child = spawn('bash', [cli, '-server', connectString], {
      stdio: ['pipe', 'pipe', 'pipe'],
      // its own process group: bash runs java as a child, and a forced stop must end both
      detached: true,
      // zkCli.sh writes no log with Debian's defaults; keep its JVM small.
      env: { ...process.env, CLIENT_JVMFLAGS: '-Xmx128m -XX:TieredStopAtLevel=1' },
    });
    return new ZkCliSession(child);
  }

  /** Everything zkCli printed so far. */
  get transcript(): string {
    return this.output;
  }

  /** Types one command line without waiting for its output (e.g. `delete`, which prints nothing). */
  send(command: string): void {
    this.child.stdin.write(`${command}\n`);
  }

  /**
   * Types one command line and waits until the output shows `expect` (searched in what is printed after the
   * command was sent).
   */
  async run(command: string, expect: RegExp, timeoutMs = 20_000): Promise<string> {
    const from = this.output.length;
    this.child.stdin.write(`${command}\n`);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const printed = this.output.slice(from);
      if (expect.test(printed)) return printed;
      if (this.child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`zkCli: "${command}" did not print ${String(expect)} within ${timeoutMs} ms. Transcript:\n${this.output}`);
  }

  /** Ends the session: `quit`, end of input, and SIGKILL by PID if it lingers. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end('quit\n');
    const pid = this.child.pid;
    const timer = setTimeout(() => {
      if (pid !== undefined) process.kill(-pid, 'SIGKILL');
    }, 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}
