import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const javaSources = resolve(here, '..', 'java');
/** The repository root (packages/serialization-hessian2/test/support → four levels up). */
const repoRoot = resolve(here, '..', '..', '..', '..');

/** Java's flags for Caucho on JDK 17 (its reflection needs the JDK packages opened; spec §6.3). */
const OPENS = ['java.lang', 'java.util', 'java.math', 'java.io', 'java.sql'].flatMap((p) => ['--add-opens', `java.base/${p}=ALL-UNNAMED`]);

/**
 * `shared/oracles/hessian-lite/build.sh` beside the repository (`../shared` from its root; a worktree checks the
 * parents above it too), or `WEFT_SHARED_DIR/oracles/…`. Fails with what to do when it is missing.
 */
export function hessianLiteBuildScript(): string {
  const candidates: string[] = [];
  if (process.env.WEFT_SHARED_DIR) candidates.push(join(process.env.WEFT_SHARED_DIR, 'oracles', 'hessian-lite', 'build.sh'));
  for (let dir = dirname(repoRoot); ; dir = dirname(dir)) {
    candidates.push(join(dir, 'shared', 'oracles', 'hessian-lite', 'build.sh'));
    if (dirname(dir) === dir) break;
  }
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) {
    throw new Error(
      `hessian-lite oracle not found: looked for ${candidates[0]} (the shared/ folder beside the repository). ` +
        'Put shared/ next to the clone or set WEFT_SHARED_DIR to it.',
    );
  }
  return found;
}

function run(command: string, args: string[], input?: Buffer): Buffer {
  const result = spawnSync(command, args, { input, maxBuffer: 256 * 1024 * 1024, timeout: 60_000 });
  if (result.error) throw new Error(`${command} failed to start: ${result.error.message} (run scripts/install-java.sh)`);
  if (result.status !== 0) throw new Error(`${command} ${args.slice(-2).join(' ')} exited ${result.status}: ${result.stderr.toString().slice(0, 2000)}`);
  return result.stdout;
}

function javaFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? javaFiles(path) : path.endsWith('.java') ? [path] : [];
  });
}

/** A compiled oracle: our harness (test/java) on one Hessian implementation. */
export interface Oracle {
  readonly classpath: string;
  readonly flags: readonly string[];
}

/**
 * A build kept under `.weft-tmp/` keyed by the hash of its inputs (the harness sources, the oracle's sources), so
 * only the first run pays for javac; `build` fills a fresh directory that then replaces the cache entry at once.
 */
function cached(kind: string, inputs: readonly string[], build: (dir: string) => void): string {
  const hash = createHash('sha256');
  for (const file of [...javaFiles(javaSources), ...inputs].sort()) hash.update(file).update(readFileSync(file));
  const dir = join(repoRoot, '.weft-tmp', `hessian-oracle-${kind}-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(join(dir, 'ok'))) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  const work = mkdtempSync(join(tmpdir(), `weft-hessian-${kind}-`));
  try {
    build(work);
    writeFileSync(join(work, 'ok'), '');
    rmSync(dir, { recursive: true, force: true });
    cpSync(work, dir, { recursive: true });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

/** Builds hessian-lite 4.0.3 from the shared sources and compiles the harness on it. */
export function buildHessianLite(): Oracle {
  const script = hessianLiteBuildScript();
  const dir = cached('lite', [script, join(dirname(script), 'hessian-lite-4.0.3-src.tar.gz')], (work) => {
    run('bash', [script, work]);
    mkdirSync(join(work, 'classes'));
    run('javac', ['-nowarn', '-encoding', 'UTF-8', '-cp', join(work, 'hessian-lite-4.0.3.jar'), '-d', join(work, 'classes'), ...javaFiles(javaSources)]);
  });
  return { classpath: `${join(dir, 'classes')}:${join(dir, 'hessian-lite-4.0.3.jar')}`, flags: [] };
}

/** Compiles the harness on Debian's Caucho Hessian 4.0.38 (the import rewritten), with the serializer resources its jar lacks. */
export function buildCaucho(): Oracle {
  const jar = '/usr/share/java/hessian.jar';
  if (!existsSync(jar)) throw new Error(`${jar} not found: run scripts/install-java.sh (Debian's libhessian-java).`);
  const dir = cached('caucho', [jar], (work) => buildCauchoInto(work, jar));
  return { classpath: `${join(dir, 'classes')}:${jar}`, flags: OPENS };
}

function buildCauchoInto(dir: string, jar: string): void {
  const sources = join(dir, 'src');
  cpSync(javaSources, sources, { recursive: true });
  for (const file of javaFiles(sources)) {
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('com.alibaba.com.caucho.hessian.io.', 'com.caucho.hessian.io.'));
  }
  const classes = join(dir, 'classes');
  mkdirSync(join(classes, 'META-INF', 'hessian'), { recursive: true });
  writeFileSync(join(classes, 'META-INF', 'hessian', 'serializers'), 'java.math.BigDecimal=com.caucho.hessian.io.StringValueSerializer\njava.io.File=com.caucho.hessian.io.StringValueSerializer\n');
  writeFileSync(join(classes, 'META-INF', 'hessian', 'deserializers'), 'java.math.BigDecimal=com.caucho.hessian.io.BigDecimalDeserializer\n');
  run('javac', ['-nowarn', '-encoding', 'UTF-8', '-cp', jar, '-d', classes, ...javaFiles(sources)]);
  rmSync(sources, { recursive: true, force: true });
}

/** What Java made of one body Weft wrote: its dump and Hessian2Output's re-encoding (hex, `-` on error). */
export interface Decoded {
  readonly dump: string;
  readonly again: string;
}

/** The oracle's answers: per Weft body, and the Java-built corpus (name → hex). */
export interface OracleRun {
  readonly decoded: ReadonlyMap<string, Decoded>;
  readonly encoded: ReadonlyMap<string, string>;
}

/** Runs the oracle once over every body (one JVM for the whole corpus). */
export function runOracle(oracle: Oracle, bodies: ReadonlyMap<string, Uint8Array>): OracleRun {
  const parts: Buffer[] = [];
  for (const [name, body] of bodies) {
    const nameBytes = Buffer.from(name, 'utf8');
    const head = Buffer.alloc(4);
    head.writeInt32BE(nameBytes.length);
    const size = Buffer.alloc(4);
    size.writeInt32BE(body.length);
    parts.push(head, nameBytes, size, Buffer.from(body));
  }
  const out = run('java', [...oracle.flags, '-cp', oracle.classpath, 'weft.oracle.Oracle'], Buffer.concat(parts)).toString('ascii');
  const decoded = new Map<string, Decoded>();
  const encoded = new Map<string, string>();
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const [kind, name, a, b] = line.split('\t') as [string, string, string, string | undefined];
    if (kind === 'D') decoded.set(name, { dump: a, again: b ?? '-' });
    else encoded.set(name, a);
  }
  return { decoded, encoded };
}

/** Java's `String.hashCode()`, for the dumps of long strings. */
export function javaHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}
