import type { ExtensionDefinitions, ExtensionSource } from './extension-definitions.js';
import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { describeRecord } from './extension-import.js';
import { installHint, KNOWN_EXTENSIONS, knownPackageFor } from './known-extensions.js';
import type { LoaderHost } from './extension-loader.js';
import { closestName } from './names.js';

// The messages that explain a name an extension point lacks, or a class that disagrees with its manifest:
// what is available, the closest name, the package that contributes it, where a class came from.

/** `from <package> (<manifest>)` or `added programmatically`. */
export function describeSource(source: ExtensionSource): string {
  return source.kind === 'manifest' ? `from ${describeRecord(source.record)}` : 'added programmatically';
}

/** The usable names of a point, sorted and comma-separated, or `(none)`. */
export function describeAvailable(definitions: ExtensionDefinitions): string {
  const names = definitions.names().sort();
  return names.length > 0 ? names.join(', ') : '(none)';
}

/** What is available, the closest name, and the first-party package contributing it: see `ExtensionLoader.describeMissing`. */
export function describeMissing(definitions: ExtensionDefinitions, name: string): string {
  const pointId = definitions.point.id;
  const parts = [`Available: ${describeAvailable(definitions)}.`];
  const available = definitions.names();
  const known = KNOWN_EXTENSIONS.filter((e) => e.point === pointId).map((e) => e.name);
  const suggestion = closestName(name, available) ?? closestName(name, known);
  if (suggestion !== undefined && suggestion !== name) parts.push(`Did you mean "${suggestion}"?`);
  // Only a name the first-party catalogue knows gets an install hint: the one asked for, else the suggestion.
  const packaged = knownPackageFor(pointId, name) !== undefined ? name : suggestion !== undefined && !available.includes(suggestion) ? suggestion : undefined;
  if (packaged !== undefined) {
    const hint = installHint(pointId, packaged);
    if (hint !== '') parts.push(hint);
  }
  return parts.join(' ');
}

/** `ERR_SPI_NOT_FOUND` for `name`: its recorded load failure, or what is available and what discovery reported. */
export function notFound(definitions: ExtensionDefinitions, host: LoaderHost, name: string): ExtensionError {
  const parts = [`No extension "${name}" of ${definitions.point.id} in ${host.description}.`];
  const failure = definitions.failures.get(name);
  if (failure !== undefined) {
    parts.push(`Available: ${describeAvailable(definitions)}.`);
    parts.push(`It was declared but failed to load: ${failure.message}`);
  } else {
    parts.push(describeMissing(definitions, name));
    const missing = host.discoveryProblems(undefined).map((p) => p.message.replace(/\.$/, ''));
    if (missing.length > 0) {
      parts.push(`Discovery also reported: ${missing.slice(0, 3).join('; ')}${missing.length > 3 ? `; and ${missing.length - 3} more` : ''}.`);
    }
  }
  return new ExtensionError(ExtensionErrorCode.NOT_FOUND, parts.join(' '), failure !== undefined ? { cause: failure } : undefined);
}

/** `ERR_SPI_INVALID_MANIFEST`: a class's decorator and its manifest entry disagree. */
export function mismatch(where: string, decorator: string, declared: unknown, manifest: unknown): ExtensionError {
  return new ExtensionError(
    ExtensionErrorCode.INVALID_MANIFEST,
    `${where}: the class's ${decorator} says ${JSON.stringify(declared)} but the manifest says ${JSON.stringify(manifest ?? null)}. ` +
      `The manifest is what tools read without importing code; make the two agree.`,
  );
}
