// Test helpers shared by Weft's packages (plain JS: no build step).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Invoker } from '@weft/core';

const packagesDir = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * Creates a throwaway application directory whose package.json depends on the given workspace packages, each
 * installed as a symlink to the workspace package (as `npm install` of a workspace does), so discovery finds
 * exactly those packages and Node resolves one copy of each.
 */
export function createTestApp(packages, options = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `${options.prefix ?? 'weft-test-app'}-`)));
  const dependencies = {};
  for (const name of packages) {
    const match = /^@weft\/(.+)$/.exec(name);
    if (match === null) throw new Error(`createTestApp: only @weft/* workspace packages can be linked (got ${name})`);
    const target = join(packagesDir, match[1]);
    mkdirSync(join(root, 'node_modules', '@weft'), { recursive: true });
    symlinkSync(target, join(root, 'node_modules', '@weft', match[1]), 'dir');
    dependencies[name] = '*';
  }
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: options.name ?? 'weft-test-app', version: '1.0.0', private: true, type: 'module', dependencies }, null, 2),
  );
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A logger that records every message (for asserting what was logged). */
export class RecordingLogger {
  constructor() {
    this.messages = [];
  }
  debug(message) {
    this.messages.push({ level: 'debug', message });
  }
  info(message) {
    this.messages.push({ level: 'info', message });
  }
  warn(message, error) {
    this.messages.push({ level: 'warn', message, error });
  }
  error(message, error) {
    this.messages.push({ level: 'error', message, error });
  }
  /** Messages of one level. */
  of(level) {
    return this.messages.filter((m) => m.level === level).map((m) => m.message);
  }
}

/**
 * The lines between `// #region <name>` and `// #endregion <name>` of a source text, unindented: lets a test run
 * a README snippet and check that the README shows exactly that code.
 */
export function sourceRegion(source, name) {
  const start = source.indexOf(`// #region ${name}\n`);
  const end = source.indexOf(`// #endregion ${name}`);
  if (start < 0 || end < 0) throw new Error(`no region "${name}" in the source`);
  const lines = source.slice(source.indexOf('\n', start) + 1, end).split('\n').slice(0, -1);
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

/**
 * Stands for the rest of a chain in filter tests: answers each call with what `answer(invocation)` returns (or
 * throws), and records the invocations that reached it.
 */
export class StubInvoker extends Invoker {
  constructor(url, answer) {
    super();
    this.url = url;
    this.answer = answer;
    this.reached = [];
  }

  /** How many calls reached it. */
  get calls() {
    return this.reached.length;
  }

  getUrl() {
    return this.url;
  }

  invoke(invocation) {
    this.reached.push(invocation);
    return this.answer(invocation);
  }
}

/**
 * Generates a throwaway PKI with Debian's `openssl` in `dir`: a CA, a server certificate for `localhost` and
 * `127.0.0.1`, a client certificate `CN=billing` (SAN `URI:spiffe://acme/billing`), a client certificate from an
 * untrusted CA (`rogue`), and the server key encrypted with the passphrase `hunter2`. EC P-256 keys, valid 2 days.
 */
export function createTestPki(dir) {
  mkdirSync(dir, { recursive: true });
  const at = (name) => join(dir, name);
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-noenc'];
  const ca = (name, subject) =>
    openssl('req', '-x509', ...ec, '-keyout', at(`${name}.key`), '-out', at(`${name}.pem`), '-days', '2', '-subj', subject,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  let serial = 1;
  const leaf = (name, subject, issuer, extensions) => {
    writeFileSync(at(`${name}.ext`), extensions);
    openssl('req', ...ec, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`), '-subj', subject);
    openssl('x509', '-req', '-in', at(`${name}.csr`), '-CA', at(`${issuer}.pem`), '-CAkey', at(`${issuer}.key`),
      '-set_serial', String(serial++), '-days', '2', '-out', at(`${name}.pem`), '-extfile', at(`${name}.ext`));
  };
  ca('ca', '/CN=Weft Test CA');
  ca('rogue-ca', '/CN=Rogue CA');
  leaf('server', '/CN=localhost', 'ca', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  leaf('other-server', '/CN=other.example', 'ca', 'subjectAltName=DNS:other.example\nextendedKeyUsage=serverAuth\n');
  leaf('client', '/O=Acme/CN=billing', 'ca', 'subjectAltName=URI:spiffe://acme/billing\nextendedKeyUsage=clientAuth\n');
  leaf('rogue', '/CN=billing', 'rogue-ca', 'extendedKeyUsage=clientAuth\n');
  openssl('pkey', '-in', at('server.key'), '-aes256', '-passout', 'pass:hunter2', '-out', at('server-encrypted.key'));
  return {
    dir,
    ca: at('ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    serverKeyEncrypted: at('server-encrypted.key'),
    passphrase: 'hunter2',
    otherServerCert: at('other-server.pem'),
    otherServerKey: at('other-server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
    rogueCert: at('rogue.pem'),
    rogueKey: at('rogue.key'),
    rogueCa: at('rogue-ca.pem'),
  };
}
