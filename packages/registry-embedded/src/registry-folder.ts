import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

import { RpcError, RpcErrorCode } from '@weft/core';

/** The current user's id, or `undefined` where the platform has none (Windows): ownership is not checked there. */
export function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * The default folder of `embedded://`: private to the user running the process.
 *
 * @remarks `$XDG_RUNTIME_DIR/weft-registry` when that variable names a folder the user owns with mode 0700 (systemd's
 * per-user runtime folder), else `~/.weft/registry` when the home folder is writable, else
 * `<tmpdir>/weft-registry-<uid>`. The folder itself is created with mode 0700 and checked by
 * {@link checkRegistryFolder} like any other.
 * @internal
 */
export function defaultRegistryDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const uid = currentUid();
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime !== undefined && isAbsolute(runtime)) {
    try {
      const stat = statSync(runtime);
      if (stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0) return join(runtime, 'weft-registry');
    } catch {
      // not there: fall through
    }
  }
  try {
    const home = homedir();
    accessSync(home, constants.W_OK);
    return join(home, '.weft', 'registry');
  } catch {
    return join(tmpdir(), `weft-registry-${uid ?? 'user'}`);
  }
}

/**
 * Creates `folder` (mode 0700) when missing and refuses one that another local user could write: not a folder,
 * owned by another user, or writable by group or others.
 *
 * @remarks Whoever can write the registry folder controls the provider list and can push override rules, so a
 * folder another user created first (the old shared `/tmp/weft-registry`), or one made group/world-writable, is an
 * error that says how to fix it — never used silently.
 * @throws `RpcError` `registry` naming the folder, what is wrong and what to do.
 * @internal
 */
export function checkRegistryFolder(folder: string, source: string): void {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new RpcError(RpcErrorCode.REGISTRY, `cannot create the registry folder ${folder}: ${(error as Error).message}`, { cause: error });
  }
  const stat = statSync(folder);
  const uid = currentUid();
  const fix = `Use a folder of your own (embedded:///path/to/folder, mode 0700), or fix this one (chown to uid ${uid ?? '?'}, chmod 700).`;
  if (!stat.isDirectory()) throw new RpcError(RpcErrorCode.REGISTRY, `${source}: the registry folder ${folder} is not a folder. ${fix}`);
  if (uid !== undefined && stat.uid !== uid) {
    throw new RpcError(
      RpcErrorCode.REGISTRY,
      `${source}: the registry folder ${folder} is owned by uid ${stat.uid}, not by this process's user (uid ${uid}): ` +
        `that user could register providers and push override rules for you. ${fix}`,
    );
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new RpcError(
      RpcErrorCode.REGISTRY,
      `${source}: the registry folder ${folder} is writable by ${(stat.mode & 0o002) !== 0 ? 'every user' : 'its group'} ` +
        `(mode ${(stat.mode & 0o777).toString(8).padStart(3, '0')}): another local user could register providers and push override rules. ${fix}`,
    );
  }
}
