import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, watch as watchFolder, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

import { AbstractRegistry, RegistryCategory, registryCategoryOf, URL, type Logger } from '@weft/core';
import { safeLog } from '@weft/core/spi';

import { checkRegistryFolder, currentUid } from './registry-folder.js';

/** What an entry file holds. */
interface EntryFile {
  /** The registered URL, in Weft's string form. */
  readonly url: string;
  /** Owning process, for ephemeral entries. */
  readonly pid?: number;
}

interface Watch {
  readonly subscription: URL;
  readonly watchers: FSWatcher[];
  readonly timer: ReturnType<typeof setInterval>;
  readonly last: Map<RegistryCategory, string>;
}

const CATEGORIES = [RegistryCategory.PROVIDERS, RegistryCategory.CONFIGURATORS, RegistryCategory.ROUTERS, RegistryCategory.CONSUMERS] as const;

/**
 * The embedded registry: Dubbo's registry layout as files in a local directory, shared by every process on
 * the machine.
 *
 * @remarks
 * `embedded:///path/to/dir` (default: a folder private to the user — `$XDG_RUNTIME_DIR/weft-registry`, else
 * `~/.weft/registry`, else `<tmpdir>/weft-registry-<uid>`); the folder must be the user's own and not writable by
 * group or others, and entries written by another user are ignored (warned once). The `group` key names the root
 * folder (default `dubbo`), as in ZooKeeper. Layout: `<dir>/<group>/<interface>/{providers,consumers,
 * configurators,routers}/<entry>.json`, each entry holding one URL — the same URLs ZooKeeper nodes name.
 * - **Ephemeral entries** (`dynamic=true`, the default) record the registering process's PID; an entry whose
 *   process is gone is treated as absent and deleted by the next reader — so a crashed provider disappears
 *   like an expired ZooKeeper session. `dynamic=false` entries persist (override rules written by tools).
 * - **Notifications**: each subscription watches its category folders (`fs.watch`) and polls every
 *   `poll.interval` ms (default 500; also catches dead processes), and notifies a category's full list when it
 *   changed.
 * - Writes are atomic (write to a temporary file, then rename); a malformed entry is logged and ignored.
 * Override rules and `mock://` providers work exactly as with ZooKeeper.
 *
 * @example
 * ```ts
 * const app = await WeftApplication.start({ root, name: 'shop', registry: 'embedded:///var/tmp/weft-registry' });
 * ```
 */
export class EmbeddedRegistry extends AbstractRegistry {
  private readonly root: string;
  private readonly watches = new Map<string, Watch>();
  private readonly pollInterval: number;
  /** This process's user: entries owned by anyone else are ignored. */
  private readonly uid = currentUid();
  /** Entries already reported as foreign (reported once, not on every poll). */
  private readonly foreign = new Set<string>();

  constructor(url: URL, logger: Logger, defaultDirectory: string) {
    super(url, logger);
    const group = url.getParameter('group', 'dubbo').replace(/^\/+/, '');
    const directory = url.path === '' ? defaultDirectory : `/${url.path}`;
    this.root = group === '' ? directory : join(directory, group);
    this.pollInterval = url.getParameter('poll.interval', 500);
    const source = `registry ${url.protocol}://${url.path === '' ? '' : `/${url.path}`}`;
    checkRegistryFolder(directory, source);
    if (this.root !== directory) checkRegistryFolder(this.root, source);
  }

  /** The folder this registry keeps its entries in. */
  get directory(): string {
    return this.root;
  }

  isAvailable(): boolean {
    return !this.destroyed;
  }

  /** The services with at least one entry (in any category) under the registry's root. */
  override listServices(): Promise<readonly string[]> {
    const list = (folder: string): string[] => {
      try {
        return readdirSync(folder).filter((n) => !n.startsWith('.'));
      } catch {
        return [];
      }
    };
    const services = list(this.root).filter((name) => list(join(this.root, name)).some((category) => list(join(this.root, name, category)).length > 0));
    return Promise.resolve(services.map((n) => URL.decode(n)));
  }

  protected async doRegister(url: URL): Promise<void> {
    const folder = this.folderOf(url, registryCategoryOf(url));
    mkdirSync(folder, { recursive: true });
    const entry: EntryFile = url.getParameter('dynamic', true) ? { url: url.toString(), pid: process.pid } : { url: url.toString() };
    const file = join(folder, entryName(url));
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(entry));
    renameSync(temp, file);
  }

  protected async doUnregister(url: URL): Promise<void> {
    rmSync(join(this.folderOf(url, registryCategoryOf(url)), entryName(url)), { force: true });
  }

  protected async doSubscribe(subscription: URL): Promise<void> {
    const key = subscription.toString();
    this.stopWatching(key);
    const watch: Watch = {
      subscription,
      watchers: [],
      timer: setInterval(() => this.scan(watch, false), this.pollInterval),
      last: new Map(),
    };
    watch.timer.unref?.();
    this.watches.set(key, watch);
    for (const category of this.categoriesOf(subscription)) {
      const folder = this.folderOf(subscription, category);
      mkdirSync(folder, { recursive: true });
      try {
        const watcher = watchFolder(folder, { persistent: false }, () => this.scan(watch, false));
        watcher.on('error', () => undefined);
        watch.watchers.push(watcher);
      } catch (error) {
        safeLog(this.logger, 'debug', `fs.watch unavailable for ${folder}; polling only (${(error as Error).message})`);
      }
    }
    this.scan(watch, true);
  }

  protected async doUnsubscribe(subscription: URL): Promise<void> {
    this.stopWatching(subscription.toString());
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    for (const key of [...this.watches.keys()]) this.stopWatching(key);
  }

  private stopWatching(key: string): void {
    const existing = this.watches.get(key);
    if (existing === undefined) return;
    clearInterval(existing.timer);
    for (const watcher of existing.watchers) watcher.close();
    this.watches.delete(key);
  }

  private scan(watch: Watch, initial: boolean): void {
    if (this.destroyed || this.watches.get(watch.subscription.toString()) !== watch) return;
    for (const category of this.categoriesOf(watch.subscription)) {
      const urls = this.read(this.folderOf(watch.subscription, category));
      const fingerprint = urls.map((u) => u.toString()).sort().join('\n');
      if (!initial && watch.last.get(category) === fingerprint) continue;
      watch.last.set(category, fingerprint);
      this.notify(watch.subscription, category, urls);
    }
  }

  private read(folder: string): URL[] {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return [];
    }
    const urls: URL[] = [];
    for (const name of names.sort()) {
      if (!name.endsWith('.json')) continue;
      const file = join(folder, name);
      let entry: EntryFile;
      try {
        const text = this.readOwn(file);
        if (text === undefined) continue;
        entry = JSON.parse(text) as EntryFile;
        if (typeof entry?.url !== 'string') throw new Error('no "url" field');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        safeLog(this.logger, 'warn', `ignoring malformed registry entry ${file}: ${(error as Error).message}`);
        continue;
      }
      if (entry.pid !== undefined && !isAlive(entry.pid)) {
        rmSync(file, { force: true });
        continue;
      }
      try {
        urls.push(URL.parse(entry.url));
      } catch (error) {
        safeLog(this.logger, 'warn', `ignoring registry entry ${file} with an invalid URL: ${(error as Error).message}`);
      }
    }
    return urls;
  }

  /** The entry's text, or `undefined` (with a warning, once) when another user wrote it. */
  private readOwn(file: string): string | undefined {
    const fd = openSync(file, 'r');
    try {
      const owner = fstatSync(fd).uid;
      if (this.uid !== undefined && owner !== this.uid) {
        if (!this.foreign.has(file)) {
          this.foreign.add(file);
          safeLog(this.logger, 'warn', `ignoring registry entry ${file}: it was written by uid ${owner}, not by this process's user (uid ${this.uid}).`);
        }
        return undefined;
      }
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  }

  private categoriesOf(subscription: URL): RegistryCategory[] {
    const wanted = (subscription.getParameter('category') ?? RegistryCategory.PROVIDERS).split(',').map((c) => c.trim());
    return CATEGORIES.filter((c) => wanted.includes(c));
  }

  private folderOf(url: URL, category: string): string {
    return join(this.root, URL.encode(url.getServiceInterface() ?? url.path), category);
  }
}


/** A file name for a URL: a digest of its string (URLs can exceed file-name limits); the URL is in the file. */
function entryName(url: URL): string {
  return `${createHash('sha256').update(url.toString()).digest('hex').slice(0, 40)}.json`;
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
