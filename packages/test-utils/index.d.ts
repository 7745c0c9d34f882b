import { Invoker, type Invocation, type Result, type URL } from '@weft/core';

/** A throwaway application directory. */
export interface TestApp {
  /** Real path of the application root (has package.json and node_modules). */
  readonly root: string;
  /** Removes the directory. */
  cleanup(): void;
}

/**
 * Creates a throwaway application depending on the given `@weft/*` workspace packages (linked, as npm links
 * workspaces), so discovery finds exactly those packages.
 */
export function createTestApp(packages: readonly string[], options?: { readonly name?: string; readonly prefix?: string }): TestApp;

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number>;

/** A logger that records every message. Structurally a `Logger` of `@weft/core`. */
export class RecordingLogger {
  readonly messages: { level: 'debug' | 'info' | 'warn' | 'error'; message: string; error?: unknown }[];
  debug(message: string): void;
  info(message: string): void;
  warn(message: string, error?: unknown): void;
  error(message: string, error?: unknown): void;
  of(level: 'debug' | 'info' | 'warn' | 'error'): string[];
}

/** The lines between `// #region <name>` and `// #endregion <name>` of a source text, unindented. */
export function sourceRegion(source: string, name: string): string;

/**
 * Stands for the rest of a chain in filter tests: answers each call with what `answer(invocation)` returns (or
 * throws), and records the invocations that reached it.
 */
export class StubInvoker extends Invoker {
  constructor(url: URL, answer: (invocation: Invocation) => Result | Promise<Result>);
  /** The invocations that reached it, in order. */
  readonly reached: Invocation[];
  /** How many calls reached it. */
  get calls(): number;
  getUrl(): URL;
  invoke(invocation: Invocation): Result | Promise<Result>;
}

/** The files of {@link createTestPki} (PEM paths). */
export interface TestPki {
  readonly dir: string;
  /** The CA every certificate but the rogue one chains to. */
  readonly ca: string;
  /** `CN=localhost`, SAN `DNS:localhost, IP:127.0.0.1`, serverAuth. */
  readonly serverCert: string;
  readonly serverKey: string;
  /** `serverKey` encrypted with {@link TestPki.passphrase}. */
  readonly serverKeyEncrypted: string;
  readonly passphrase: string;
  /** A server certificate of the same CA for `other.example` only. */
  readonly otherServerCert: string;
  readonly otherServerKey: string;
  /** `O=Acme, CN=billing`, SAN `URI:spiffe://acme/billing`, clientAuth. */
  readonly clientCert: string;
  readonly clientKey: string;
  /** `CN=billing` from an untrusted CA. */
  readonly rogueCert: string;
  readonly rogueKey: string;
  readonly rogueCa: string;
}

/** Generates a throwaway PKI in `dir` with Debian's `openssl` (EC P-256, valid 2 days). */
export function createTestPki(dir: string): TestPki;
