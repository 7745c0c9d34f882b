import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, watch as watchFolder, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

import { AbstractRegistry, RegistryCategory, registryCategoryOf, URL, type Logger } from '@weft/core';
import { providerApplicationDocuments, ruleLimitsOf, RuleLimitKeys, safeLog, subscriptionDocuments, TimeSlicer, type ConfigCentreDocument } from '@weft/core/spi';

import { EmbeddedConfigCentre, newDocument, type ConfigDocument } from './config-centre.js';
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
  /** What each category folder held at the last scan, per entry file name. */
  readonly folders: Map<RegistryCategory, Map<string, CachedEntry>>;
  /** A scan is running; `again` asks for another one after it. */
  scanning: boolean;
  again: boolean;
  /** A change event arrived; one scan follows shortly (bursts of writes are coalesced). */
  soon: ReturnType<typeof setTimeout> | undefined;
  /** Entry names change events reported since the last scan, per category; `true` = unknown, check every entry. */
  readonly dirty: Map<RegistryCategory, Set<string> | true>;
  /** The next scan checks every entry's stat (a poll; or a change event without a file name). */
  full: boolean;
  /** The config-centre documents this subscription reads, by key. */
  readonly documents: Map<string, ConfigDocument>;
  /** Document keys change events reported since the last scan; `true` = unknown, check every document. */
  configDirty: Set<string> | true;
}

/** One entry file as last read: its stat identity, and what it held. */
interface CachedEntry {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** The URL, or undefined for a malformed or refused entry (logged once, until the file changes). */
  readonly url: URL | undefined;
  readonly pid: number | undefined;
}

/** The folder under the registry's root that holds the config centre (not a service). */
const CONFIG_FOLDER = 'config';

/** Delay between a change event and the scan it triggers, in ms (coalesces bursts of writes). */
const CHANGE_DELAY = 10;

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
 * - **Config centre**: `<dir>/<group>/config/<config.group>/<URL-encoded key>` files hold the documents ZooKeeper keeps
 *   at `/dubbo/config/dubbo/<key>` (`publishConfig`, `weft route put`): a subscription to `configurators` reads
 *   `{application}.configurators` and `{interface}:{version}:{group}.configurators` (YAML rules, translated to
 *   override URLs after the entries' own), one to `routers` reads `{application}.condition-router`,
 *   `{service key}.condition-router` and each provider application's `.tag-router` and `.condition-router`
 *   (delivered as `route://…?rule.yaml=…`, as ZooKeeper does). Only documents whose stat changed are read again; a
 *   refused document (too large, not parsable) is logged and the previous rules stay. `config-center=false` turns it off.
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
  private readonly maxBytes: number;
  /** Entry files read and bytes read so far (an unchanged entry is never read again). */
  readonly reads = { files: 0, bytes: 0 };
  private readonly config: EmbeddedConfigCentre;

  constructor(url: URL, logger: Logger, defaultDirectory: string) {
    super(url, logger);
    const group = url.getParameter('group', 'dubbo').replace(/^\/+/, '');
    const directory = url.path === '' ? defaultDirectory : `/${url.path}`;
    this.root = group === '' ? directory : join(directory, group);
    this.pollInterval = url.getParameter('poll.interval', 500);
    this.maxBytes = ruleLimitsOf(url).maxBytes;
    const source = `registry ${url.protocol}://${url.path === '' ? '' : `/${url.path}`}`;
    checkRegistryFolder(directory, source);
    if (this.root !== directory) checkRegistryFolder(this.root, source);
    const configFolder = url.getParameter('config-center', true) ? join(this.root, CONFIG_FOLDER, url.getParameter('config.group', 'dubbo')) : undefined;
    this.config = new EmbeddedConfigCentre(configFolder, this.uid, ruleLimitsOf(url), logger, (file, owner) => this.reportForeign(file, owner), this.reads);
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
    const services = list(this.root).filter((name) => name !== CONFIG_FOLDER && list(join(this.root, name)).some((category) => list(join(this.root, name, category)).length > 0));
    return Promise.resolve(services.map((n) => URL.decode(n)));
  }

  /** The file of config-centre document `key`: `<root>/config/<config.group>/<URL-encoded key>`. */
  override configPath(key: string): string | undefined {
    return this.config.path(key);
  }

  /** Writes (or deletes, with `undefined`) config-centre document `key`, atomically, mode 0600. */
  override async publishConfig(key: string, content: string | undefined): Promise<void> {
    this.config.write(key, content);
  }

  override async getConfig(key: string): Promise<string | undefined> {
    return this.config.read(key);
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
      timer: setInterval(() => {
        watch.full = true;
        void this.scan(watch, false);
      }, this.pollInterval),
      folders: new Map(),
      scanning: false,
      again: false,
      soon: undefined,
      dirty: new Map(),
      full: true,
      documents: new Map(),
      configDirty: true,
    };
    watch.timer.unref?.();
    this.watches.set(key, watch);
    const categories = this.categoriesOf(subscription);
    for (const category of categories) {
      const folder = this.folderOf(subscription, category);
      mkdirSync(folder, { recursive: true });
      this.watchFolder(watch, folder, (name) => this.changed(watch, category, name));
    }
    if (this.config.folder !== undefined) {
      for (const category of [RegistryCategory.CONFIGURATORS, RegistryCategory.ROUTERS] as const) {
        if (categories.includes(category)) for (const document of subscriptionDocuments(subscription, category)) addDocument(watch, document);
      }
      if (watch.documents.size > 0) {
        mkdirSync(this.config.folder, { recursive: true, mode: 0o700 });
        this.watchFolder(watch, this.config.folder, (name) => this.changedDocument(watch, name));
      }
    }
    await this.scan(watch, true);
  }

  /** Watches `folder` for `watch` (`fs.watch`; where it is unavailable, the poll alone notices changes). */
  private watchFolder(watch: Watch, folder: string, onChange: (name: string | Buffer | null) => void): void {
    try {
      const watcher = watchFolder(folder, { persistent: false }, (_event, name) => onChange(name));
      watcher.on('error', () => undefined);
      watch.watchers.push(watcher);
    } catch (error) {
      safeLog(this.logger, 'debug', `fs.watch unavailable for ${folder}; polling only (${(error as Error).message})`);
    }
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
    if (existing.soon !== undefined) clearTimeout(existing.soon);
    for (const watcher of existing.watchers) watcher.close();
    this.watches.delete(key);
  }

  /** A change event for an entry of a category folder: remember which, and scan soon. */
  private changed(watch: Watch, category: RegistryCategory, name: string | Buffer | null): void {
    const dirty = watch.dirty.get(category);
    if (typeof name !== 'string' || name === '') watch.dirty.set(category, true);
    else if (dirty === undefined) watch.dirty.set(category, new Set([name]));
    else if (dirty !== true) dirty.add(name);
    this.scanSoon(watch);
  }

  /** A change event in the config-centre folder: remember which document, and scan soon if it is one of ours. */
  private changedDocument(watch: Watch, name: string | Buffer | null): void {
    if (typeof name !== 'string' || name === '') {
      watch.configDirty = true;
    } else {
      // Temporary files, and documents this subscription does not read (one it starts reading is read then).
      const key = this.config.keyOf(name);
      if (key === undefined || !watch.documents.has(key)) return;
      if (watch.configDirty !== true) watch.configDirty.add(key);
    }
    this.scanSoon(watch);
  }

  /** Schedules one scan shortly (a burst of change events makes one scan). */
  private scanSoon(watch: Watch): void {
    if (watch.soon !== undefined) return;
    watch.soon = setTimeout(() => {
      watch.soon = undefined;
      void this.scan(watch, false);
    }, CHANGE_DELAY);
    watch.soon.unref?.();
  }

  /**
   * Re-reads the subscription's category folders and notifies the categories that changed. Only entry files whose
   * stat identity (inode, size, mtime) changed are read. A poll checks every entry's stat; a scan after change events
   * only the entries they named and new names. The work is sliced so a folder of thousands of entries never blocks the
   * event loop for long. A scan asked for while one runs follows it.
   */
  private async scan(watch: Watch, initial: boolean): Promise<void> {
    if (watch.scanning) {
      watch.again = true;
      return;
    }
    watch.scanning = true;
    try {
      const slicer = new TimeSlicer();
      do {
        watch.again = false;
        const full = watch.full || initial;
        watch.full = false;
        const dirty = new Map(watch.dirty);
        watch.dirty.clear();
        const configDirty = full ? true : watch.configDirty;
        watch.configDirty = new Set();
        const alive = new Map<number, boolean>();
        for (const category of this.categoriesOf(watch.subscription)) {
          if (this.destroyed || this.watches.get(watch.subscription.toString()) !== watch) return;
          const previous = watch.folders.get(category);
          const check = full ? true : (dirty.get(category) ?? new Set<string>());
          const next = await this.read(this.folderOf(watch.subscription, category), previous, check, alive, slicer);
          if (this.destroyed || this.watches.get(watch.subscription.toString()) !== watch) return;
          const documents = this.refreshDocuments(watch, category, configDirty);
          if (!initial && previous !== undefined && sameEntries(previous, next) && !documents) continue;
          watch.folders.set(category, next);
          const urls: URL[] = [];
          for (const entry of next.values()) if (entry.url !== undefined) urls.push(entry.url);
          if (category === RegistryCategory.CONFIGURATORS || category === RegistryCategory.ROUTERS) {
            urls.push(...this.config.urlsOf(watch.documents.values(), category, watch.subscription));
          }
          this.notify(watch.subscription, category, urls);
        }
        initial = false;
      } while (watch.again);
    } finally {
      watch.scanning = false;
    }
  }

  /**
   * Brings the config-centre documents a category delivers up to date (for `routers`, first adding the rules of
   * provider applications seen among the providers); true when what they deliver changed.
   */
  private refreshDocuments(watch: Watch, category: RegistryCategory, dirty: ReadonlySet<string> | true): boolean {
    if (category !== RegistryCategory.CONFIGURATORS && category !== RegistryCategory.ROUTERS) return false;
    const added = new Set<string>();
    if (category === RegistryCategory.ROUTERS && this.config.folder !== undefined) {
      const consumerApp = watch.subscription.getApplication();
      for (const entry of watch.folders.get(RegistryCategory.PROVIDERS)?.values() ?? []) {
        const app = entry.url?.getApplication();
        if (!app) continue;
        for (const document of providerApplicationDocuments(app, consumerApp)) if (addDocument(watch, document)) added.add(document.key);
      }
    }
    let changed = false;
    for (const document of watch.documents.values()) {
      if ((document.kind === 'configurators') !== (category === RegistryCategory.CONFIGURATORS)) continue;
      if (dirty !== true && !dirty.has(document.key) && !added.has(document.key)) continue;
      if (this.config.refresh(document)) changed = true;
    }
    return changed;
  }

  private async read(
    folder: string,
    previous: ReadonlyMap<string, CachedEntry> | undefined,
    check: ReadonlySet<string> | true,
    alive: Map<number, boolean>,
    slicer: TimeSlicer,
  ): Promise<Map<string, CachedEntry>> {
    const out = new Map<string, CachedEntry>();
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return out;
    }
    for (const name of names.sort()) {
      if (slicer.due()) await slicer.pause();
      if (!name.endsWith('.json')) continue;
      const file = join(folder, name);
      let entry = previous?.get(name);
      if (entry === undefined || check === true || check.has(name)) {
        const stat = statSync(file, { throwIfNoEntry: false });
        if (stat === undefined || !stat.isFile()) continue;
        if (this.uid !== undefined && stat.uid !== this.uid) {
          this.reportForeign(file, stat.uid);
          continue;
        }
        if (entry === undefined || entry.ino !== stat.ino || entry.size !== stat.size || entry.mtimeMs !== stat.mtimeMs) {
          entry = this.readEntry(file, stat);
          if (entry === undefined) continue;
        }
      }
      if (entry.pid !== undefined) {
        let isUp = alive.get(entry.pid);
        if (isUp === undefined) alive.set(entry.pid, (isUp = isAlive(entry.pid)));
        if (!isUp) {
          rmSync(file, { force: true });
          continue;
        }
      }
      out.set(name, entry);
    }
    return out;
  }

  /** Reads one entry file (unless larger than `rule.max-bytes`); undefined when it vanished meanwhile. */
  private readEntry(file: string, stat: { ino: number; size: number; mtimeMs: number }): CachedEntry | undefined {
    const identity = { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
    if (stat.size > this.maxBytes) {
      safeLog(
        this.logger,
        'error',
        `Refused registry entry ${file}: ${stat.size} bytes, more than ${RuleLimitKeys.MAX_BYTES}=${this.maxBytes} (a key of the registry URL); ` +
          'it is not read (nor re-read until it changes), and the other entries apply.',
      );
      return { ...identity, url: undefined, pid: undefined };
    }
    let entry: EntryFile;
    try {
      const text = readFileSync(file, 'utf8');
      this.reads.files++;
      this.reads.bytes += Buffer.byteLength(text);
      entry = JSON.parse(text) as EntryFile;
      if (typeof entry?.url !== 'string') throw new Error('no "url" field');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      safeLog(this.logger, 'warn', `ignoring malformed registry entry ${file}: ${(error as Error).message}`);
      return { ...identity, url: undefined, pid: undefined };
    }
    const pid = typeof entry.pid === 'number' ? entry.pid : undefined;
    try {
      return { ...identity, url: URL.parse(entry.url), pid };
    } catch (error) {
      safeLog(this.logger, 'warn', `ignoring registry entry ${file} with an invalid URL: ${(error as Error).message}`);
      return { ...identity, url: undefined, pid };
    }
  }

  /** Warns once per entry file written by another user (it is ignored). */
  private reportForeign(file: string, owner: number): void {
    if (this.foreign.has(file)) return;
    this.foreign.add(file);
    safeLog(this.logger, 'warn', `ignoring registry entry ${file}: it was written by uid ${owner}, not by this process's user (uid ${this.uid}).`);
  }

  private categoriesOf(subscription: URL): RegistryCategory[] {
    const wanted = (subscription.getParameter('category') ?? RegistryCategory.PROVIDERS).split(',').map((c) => c.trim());
    return CATEGORIES.filter((c) => wanted.includes(c));
  }

  private folderOf(url: URL, category: string): string {
    return join(this.root, URL.encode(url.getServiceInterface() ?? url.path), category);
  }
}


/** Adds a config-centre document to a subscription's (once); true when it was new. */
function addDocument(watch: Watch, document: ConfigCentreDocument): boolean {
  if (watch.documents.has(document.key)) return false;
  watch.documents.set(document.key, newDocument(document));
  return true;
}

/** A file name for a URL: a digest of its string (URLs can exceed file-name limits); the URL is in the file. */
function entryName(url: URL): string {
  return `${createHash('sha256').update(url.toString()).digest('hex').slice(0, 40)}.json`;
}

/** Whether two scans of a folder saw the same entries (same files, same contents). */
function sameEntries(a: ReadonlyMap<string, CachedEntry>, b: ReadonlyMap<string, CachedEntry>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, entry] of b) if (a.get(name) !== entry) return false;
  return true;
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
