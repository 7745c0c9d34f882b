// Helpers for tests that use the installed fixture applications.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Absolute directory of a fixture application (installed by the global setup). */
export function appDir(app: string): string {
  return fileURLToPath(new URL(`../fixtures/apps/${app}/`, import.meta.url));
}

/** Imports a package as the fixture application would resolve it (same module instance as the loader gets). */
export async function importFromApp<T = Record<string, unknown>>(app: string, specifier: string): Promise<T> {
  const require = createRequire(join(appDir(app), 'package.json'));
  const resolved = require.resolve(specifier);
  return (await import(pathToFileURL(resolved).href)) as T;
}
