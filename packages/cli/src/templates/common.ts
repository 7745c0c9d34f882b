import { TOOL_VERSIONS } from '../versions.js';

/** A file to write: path relative to the package directory, and its text. @internal */
export interface TemplateFile {
  readonly path: string;
  readonly text: string;
}

/** `audit-trail` → `AuditTrail`. @internal */
export function pascalCase(kebab: string): string {
  return kebab
    .split('-')
    .map((part) => (part === '' ? '' : (part[0] as string).toUpperCase() + part.slice(1)))
    .join('');
}

/** `CacheStore` → `cache-store`, `HTTPClient` → `http-client`. @internal */
export function kebabCase(pascal: string): string {
  return pascal
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

/** What every scaffolded package.json needs. @internal */
export interface PackageJsonOptions {
  readonly packageName: string;
  readonly description: string;
  readonly coreVersion: string;
  readonly keywords: readonly string[];
}

/** package.json of a plugin: ESM, exports with default, publishes dist and META-INF, @weft/core as a peer. @internal */
export function packageJson(options: PackageJsonOptions): TemplateFile {
  const json = {
    name: options.packageName,
    version: '0.1.0',
    description: options.description,
    keywords: ['weft', 'weft-plugin', ...options.keywords],
    type: 'module',
    main: './dist/index.js',
    types: './dist/index.d.ts',
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './package.json': './package.json',
    },
    files: ['dist', 'META-INF', 'README.md'],
    engines: { node: '>=20' },
    scripts: {
      build: 'tsc -p tsconfig.json',
      test: 'npm run build && vitest run',
      prepack: 'npm run build',
    },
    peerDependencies: { '@weft/core': `^${options.coreVersion}` },
    devDependencies: {
      '@types/node': TOOL_VERSIONS['@types/node'],
      '@weft/core': options.coreVersion,
      typescript: TOOL_VERSIONS.typescript,
      vitest: TOOL_VERSIONS.vitest,
    },
  };
  return { path: 'package.json', text: `${JSON.stringify(json, null, 2)}\n` };
}

/** tsconfig.json: builds src/ to dist/ with the legacy decorators and metadata Weft's injection uses. @internal */
export function tsconfig(): TemplateFile {
  const json = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noImplicitOverride: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      declaration: true,
      sourceMap: true,
      skipLibCheck: true,
      types: ['node'],
      rootDir: 'src',
      outDir: 'dist',
    },
    include: ['src/**/*.ts'],
  };
  return { path: 'tsconfig.json', text: `${JSON.stringify(json, null, 2)}\n` };
}

/** vitest.config.ts: built code is loaded by Node itself, so tests and the loader share one copy of each module. @internal */
export function vitestConfig(): TemplateFile {
  return {
    path: 'vitest.config.ts',
    text: `import { defineConfig } from 'vitest/config';

// The extension loader imports this package's dist/ with Node's own import(). Tests must see the very same
// modules (one copy of @weft/core, one copy of your classes), also when packages are linked rather than
// installed: built code and node_modules are never re-transformed by vitest.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    server: { deps: { external: [/\\/dist\\//, /node_modules/] } },
  },
});
`,
  };
}

/** .gitignore. @internal */
export function gitignore(): TemplateFile {
  return { path: '.gitignore', text: 'node_modules/\ndist/\n*.tgz\n' };
}

/** A JSON manifest file. @internal */
export function manifest(pointId: string, entries: Record<string, unknown>): TemplateFile {
  return {
    path: `META-INF/weft/${pointId}.json`,
    text: `${compactArrays(JSON.stringify({ $schema: '../../node_modules/@weft/core/manifest.schema.json', ...entries }, null, 2))}\n`,
  };
}

/** Puts arrays of plain values on one line (`"group": ["provider", "consumer"]`), as hand-written manifests do. */
function compactArrays(json: string): string {
  return json.replace(/\[\s*\n([^[\]{}]*?)\n\s*\]/g, (_, inner: string) => `[${inner.trim().split(/,\s*\n\s*/).join(', ')}]`);
}
