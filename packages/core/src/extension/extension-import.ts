import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Class } from './decorators.js';
import type { ManifestRecord } from './discovery.js';
import { describeError, ExtensionError, ExtensionErrorCode } from './extension-error.js';

/**
 * Imports the class a manifest entry names: its module (within `timeoutMs`) and its export.
 *
 * @remarks Never throws: a failure is returned as the `ExtensionError` to record for the entry —
 * `ERR_SPI_LOAD_TIMEOUT` when the import has not settled in time (a top-level await that never settles),
 * `ERR_SPI_LOAD_FAILED` when it throws or the export is not a class. Each message names the module file.
 * @internal
 */
export async function importExtensionClass(record: ManifestRecord, pointId: string, timeoutMs: number): Promise<Class | ExtensionError> {
  const { entry, pkg } = record;
  const file = join(pkg.dir, entry.module);
  let mod: Record<string, unknown>;
  try {
    const imported = await importWithin(pathToFileURL(file).href, timeoutMs);
    if (imported === TIMED_OUT) {
      return new ExtensionError(
        ExtensionErrorCode.LOAD_TIMEOUT,
        `Cannot load extension "${entry.name}" of ${pointId} from ${describeRecord(record)}: importing ${file} did not ` +
          `finish within ${timeoutMs} ms (a top-level await in the module, or in a module it imports, never ` +
          `settles). Fix the module, or raise the limit with FrameworkModel.create({ importTimeout }) / WeftApplication.start({ importTimeout }).`,
      );
    }
    mod = imported;
  } catch (error) {
    return new ExtensionError(
      ExtensionErrorCode.LOAD_FAILED,
      `Cannot load extension "${entry.name}" of ${pointId} from ${describeRecord(record)}: importing ${file} failed: ` +
        `${describeError(error)}. Is the package built, and is "module" in its manifest right?`,
      { cause: error },
    );
  }
  const cls = mod[entry.exportName];
  if (typeof cls !== 'function') {
    const exported = Object.keys(mod).filter((k) => typeof mod[k] === 'function');
    return new ExtensionError(
      ExtensionErrorCode.LOAD_FAILED,
      `Cannot load extension "${entry.name}" of ${pointId} from ${describeRecord(record)}: ${entry.module} has no ` +
        `exported class "${entry.exportName}" (it exports: ${exported.join(', ') || 'no classes'}).`,
    );
  }
  return cls as Class;
}

/** `package <name>@<version> (<manifest path>)`, for messages. @internal */
export function describeRecord(record: ManifestRecord): string {
  return `package ${record.pkg.name}@${record.pkg.version} (${record.manifestPath})`;
}

const TIMED_OUT: unique symbol = Symbol('timed out');

/** `import(href)`, or {@link TIMED_OUT} when it has not settled after `ms` (the timer is cleared either way). */
async function importWithin(href: string, ms: number): Promise<Record<string, unknown> | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([import(href) as Promise<Record<string, unknown>>, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
