import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { RpcError, RpcErrorCode, URL, type Logger } from '@weft/core';
import { configCentreRouteUrl, configuratorForSubscriber, parseConfiguratorRules, RuleLimitKeys, safeLog, type ConfigCentreDocument, type RuleLimits } from '@weft/core/spi';

/** One config-centre document a subscription reads, as last read. */
export interface ConfigDocument extends ConfigCentreDocument {
  /** Stat identity of the file last read (`ino` 0: absent). */
  ino: number;
  size: number;
  mtimeMs: number;
  /** Configurators: the override URLs of the last valid rule (kept when a new version is refused). */
  urls: readonly URL[];
  /** Routing rules: the text (`''` when absent). */
  text: string;
}

/**
 * The embedded registry's config centre: one file per document under `<root>/config/<config.group>/`, named by the
 * document's key (URL-encoded), holding its text — the YAML rules ZooKeeper keeps at `/dubbo/config/dubbo/<key>`.
 *
 * @remarks Files are written atomically (temporary file + rename) with mode 0600; a file owned by another user is
 * ignored (warned once), one larger than `rule.yaml.max-bytes` is refused unread (logged once until it changes) and
 * the previous rules of that document stay; so does a configurator rule that does not parse. A document is read
 * again only when its stat (inode, size, mtime) changed.
 * @internal
 */
export class EmbeddedConfigCentre {
  constructor(
    /** The folder, or `undefined` when the registry URL says `config-center=false`. */
    readonly folder: string | undefined,
    private readonly uid: number | undefined,
    private readonly limits: RuleLimits,
    private readonly logger: Logger,
    /** Reports a file written by another user (once per file). */
    private readonly foreign: (file: string, owner: number) => void,
    /** Counts the files and bytes read (the registry's `reads`). */
    private readonly reads: { files: number; bytes: number },
  ) {}

  /** The file of `key`, or `undefined` without a config centre. */
  path(key: string): string | undefined {
    return this.folder === undefined ? undefined : join(this.folder, URL.encode(key));
  }

  /** The key of a file name in the folder (`undefined` for temporary files and names that do not decode). */
  keyOf(name: string): string | undefined {
    if (name.endsWith('.tmp') || name.startsWith('.')) return undefined;
    try {
      return URL.decode(name);
    } catch {
      return undefined;
    }
  }

  /** Writes (or deletes, with `undefined`) the document `key`. */
  write(key: string, content: string | undefined): void {
    const file = this.path(key);
    if (file === undefined || this.folder === undefined) throw new RpcError(RpcErrorCode.REGISTRY, `the config centre is off (config-center=false): cannot write ${key}`);
    if (content === undefined) {
      rmSync(file, { force: true });
      return;
    }
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, content, { mode: 0o600 });
    renameSync(temp, file);
  }

  /** The text of the document `key`; `undefined` when absent (or written by another user). */
  read(key: string): string | undefined {
    const file = this.path(key);
    if (file === undefined) return undefined;
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile() || (this.uid !== undefined && stat.uid !== this.uid)) return undefined;
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Brings `document` up to date with its file; true when what it delivers changed. */
  refresh(document: ConfigDocument): boolean {
    const file = this.path(document.key) as string;
    const stat = statSync(file, { throwIfNoEntry: false });
    let present = stat !== undefined && stat.isFile();
    if (present && this.uid !== undefined && stat?.uid !== this.uid) {
      this.foreign(file, stat?.uid ?? -1);
      present = false;
    }
    if (stat === undefined || !present) return document.ino === 0 ? false : clear(document);
    if (stat.ino === document.ino && stat.size === document.size && stat.mtimeMs === document.mtimeMs) return false;
    document.ino = stat.ino;
    document.size = stat.size;
    document.mtimeMs = stat.mtimeMs;
    const kept = document.kind === 'configurators' ? `${document.urls.length} override URL(s)` : document.text === '' ? 'none' : 'the previous rule';
    if (stat.size > this.limits.yamlMaxBytes) {
      safeLog(
        this.logger,
        'error',
        `Refused the config-centre rule ${file}: ${stat.size} bytes, more than ${RuleLimitKeys.YAML_MAX_BYTES}=${this.limits.yamlMaxBytes} ` +
          `(a key of the registry URL); it is not read (nor re-read until it changes), and the previous rules of this document stay (${kept}).`,
      );
      return false;
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
      this.reads.files++;
      this.reads.bytes += Buffer.byteLength(text);
    } catch (error) {
      // Deleted since the stat: the document is gone. Unreadable: logged, and read again on its next change.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return clear(document);
      safeLog(this.logger, 'warn', `cannot read the config-centre rule ${file}: ${(error as Error).message}`);
      return false;
    }
    if (document.kind !== 'configurators') {
      const changed = text !== document.text;
      document.text = text;
      return changed;
    }
    try {
      document.urls = parseConfiguratorRules(text, this.limits);
      return true;
    } catch (error) {
      safeLog(this.logger, 'error', `Rejected the configurator rule at ${file}: ${(error as Error).message} The previous rules of this document stay (${kept}).`, error);
      return false;
    }
  }

  /** What `documents` deliver to `subscription`: configurators as override URLs, routing rules as `routers` URLs. */
  urlsOf(documents: Iterable<ConfigDocument>, kind: 'configurators' | 'routers', subscription: URL): URL[] {
    const urls: URL[] = [];
    for (const document of documents) {
      if (kind === 'configurators') {
        if (document.kind === 'configurators') for (const url of document.urls) urls.push(configuratorForSubscriber(url, subscription));
      } else if (document.kind !== 'configurators') {
        const url = configCentreRouteUrl(subscription, document.kind, document.scope, this.path(document.key) as string, document.text);
        if (url !== undefined) urls.push(url);
      }
    }
    return urls;
  }
}

/** The document's file is gone: it delivers nothing now; true when it delivered something before. */
function clear(document: ConfigDocument): boolean {
  document.ino = 0;
  document.size = 0;
  document.mtimeMs = 0;
  const had = document.urls.length > 0 || document.text !== '';
  document.urls = [];
  document.text = '';
  return had;
}

/** A document not read yet. */
export function newDocument(document: ConfigCentreDocument): ConfigDocument {
  return { key: document.key, kind: document.kind, scope: document.scope, ino: 0, size: 0, mtimeMs: 0, urls: [], text: '' };
}
