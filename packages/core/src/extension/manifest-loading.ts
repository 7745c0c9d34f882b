import { getActivateMetadata, getWrapperMetadata, type AbstractClass, type Class, type WrapperMetadata } from './decorators.js';
import type { ManifestRecord } from './discovery.js';
import type { ExtensionDefinitions, ExtensionSource } from './extension-definitions.js';
import { describeError, ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { describeRecord, importExtensionClass } from './extension-import.js';
import type { LoaderHost } from './extension-loader.js';
import { mismatch } from './extension-messages.js';
import { getDependencies } from './injector.js';

/**
 * The loading phase of one extension point: imports every manifest entry (in parallel), registers the classes
 * into `definitions`, records duplicates and failures by name, then loads the points those classes inject.
 *
 * @param registered - called once the point's own entries are registered, before its dependencies load.
 * @throws `ERR_SPI_INVALID_MANIFEST`, `ERR_SPI_DUPLICATE_NAME`, `ERR_SPI_LOAD_FAILED`, `ERR_SPI_NOT_SUBCLASS` or
 * `ERR_SPI_DUPLICATE_CORE`, listing every problem of the point (the problems' own codes are on `cause`).
 * @internal
 */
export async function loadFromManifests(definitions: ExtensionDefinitions, host: LoaderHost, registered: () => void): Promise<void> {
  const { point } = definitions;
  const problems: ExtensionError[] = [];
  for (const problem of host.discoveryProblems(point.id)) {
    problems.push(new ExtensionError(ExtensionErrorCode.INVALID_MANIFEST, `Invalid manifest ${problem.file}: ${problem.message}`));
  }
  const records = host.manifestRecords(point.id);
  const firstByName = new Map<string, ManifestRecord>();
  const accepted: ManifestRecord[] = [];
  for (const record of records) {
    const previous = firstByName.get(record.entry.name);
    if (previous === undefined) {
      firstByName.set(record.entry.name, record);
      accepted.push(record);
      continue;
    }
    const message =
      `Extension name "${record.entry.name}" of ${point.id} is declared twice: by ${describeRecord(previous)} ` +
      `and by ${describeRecord(record)}. Uninstall one of the two packages, or rename the extension in one of them.`;
    definitions.duplicates.set(record.entry.name, message);
    problems.push(new ExtensionError(ExtensionErrorCode.DUPLICATE_NAME, message));
  }
  const classes = await Promise.all(accepted.map((record) => importExtensionClass(record, point.id, host.importTimeout)));
  const loadedClasses: Class[] = [];
  for (let i = 0; i < accepted.length; i++) {
    const record = accepted[i] as ManifestRecord;
    const outcome = classes[i] as Class | ExtensionError;
    if (outcome instanceof ExtensionError) {
      definitions.failures.set(record.entry.name, outcome);
      problems.push(outcome);
      continue;
    }
    if (definitions.duplicates.has(record.entry.name)) continue;
    try {
      registerFromManifest(definitions, record, outcome);
      loadedClasses.push(outcome);
    } catch (error) {
      const failure = error as ExtensionError;
      definitions.failures.set(record.entry.name, failure);
      problems.push(failure);
    }
  }
  definitions.changed();
  registered();
  problems.push(...(await dependencyProblems(definitions, host, loadedClasses)));
  const duplicateCore = host.discoveryProblems(undefined).find((p) => p.error.code === ExtensionErrorCode.DUPLICATE_CORE);
  const foreign = problems.filter((p) => p.code === ExtensionErrorCode.NOT_SUBCLASS);
  if (duplicateCore !== undefined && foreign.length > 0) {
    // One cause, said once: not a cascade of "does not extend" errors, one per extension of the other copy.
    throw new ExtensionError(
      ExtensionErrorCode.DUPLICATE_CORE,
      `${duplicateCore.message} Loading ${point.id} in ${host.description} failed because of it ` +
        `(${foreign.length} extension${foreign.length === 1 ? '' : 's'} extend the other copy's ${point.className}).`,
      { cause: problems },
    );
  }
  if (problems.length > 0) {
    const first = problems[0] as ExtensionError;
    throw new ExtensionError(
      first.code,
      problems.length === 1
        ? first.message
        : `${problems.length} problems loading extension point ${point.id} in ${host.description}:\n` +
            problems.map((p, i) => `  (${i + 1}) [${p.code}] ${p.message}`).join('\n'),
      { cause: problems.length === 1 ? first.cause ?? first : problems },
    );
  }
}

/**
 * Loads the extension points the given classes inject (other than their own); throws the first problem.
 * @internal
 */
export async function loadDependenciesOf(definitions: ExtensionDefinitions, host: LoaderHost, classes: readonly Class[]): Promise<void> {
  const problems = await dependencyProblems(definitions, host, classes);
  if (problems.length > 0) throw problems[0];
}

/** Loads the extension points the given classes inject, returning the problems met. */
async function dependencyProblems(definitions: ExtensionDefinitions, host: LoaderHost, classes: readonly Class[]): Promise<ExtensionError[]> {
  const problems: ExtensionError[] = [];
  const points = new Set<AbstractClass>();
  for (const cls of classes) {
    for (const dependency of getDependencies(cls)) {
      if (dependency === undefined || dependency.kind === 'wrapped' || dependency.kind === 'service') continue;
      if (dependency.spi !== definitions.spi) points.add(dependency.spi);
    }
  }
  for (const spi of points) {
    try {
      await host.getExtensionLoader(spi).load();
    } catch (error) {
      problems.push(
        error instanceof ExtensionError ? error : new ExtensionError(ExtensionErrorCode.LOAD_FAILED, describeError(error), { cause: error }),
      );
    }
  }
  return problems;
}

/** Registers one imported manifest class, checking it against its entry. */
function registerFromManifest(definitions: ExtensionDefinitions, record: ManifestRecord, cls: Class): void {
  const { entry } = record;
  definitions.assertSubclass(cls, `extension "${entry.name}" from ${describeRecord(record)}`);
  const source: ExtensionSource = { kind: 'manifest', record };
  const where = `${describeRecord(record)}, entry "${entry.name}"`;
  if (entry.kind === 'adaptive') {
    definitions.setAdaptive(entry.name, cls, source);
    return;
  }
  if (entry.kind === 'wrapper') {
    const declared = getWrapperMetadata(cls);
    if (declared !== undefined && !sameJson(declared, entry.wrapper)) throw mismatch(where, '@Wrapper', declared, entry.wrapper);
    definitions.wrappers.push({ name: entry.name, cls, wrapper: entry.wrapper as WrapperMetadata, source });
    return;
  }
  const declared = getActivateMetadata(cls);
  if (declared !== undefined && !sameJson(declared, entry.activate)) throw mismatch(where, '@Activate', declared, entry.activate);
  definitions.setExtension(entry.name, cls, entry.activate, source);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
