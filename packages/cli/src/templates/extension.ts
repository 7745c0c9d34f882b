import { gitignore, kebabCase, manifest, packageJson, pascalCase, tsconfig, vitestConfig, type TemplateFile } from './common.js';

/** What `weft new extension` generates from. @internal */
export interface ExtensionTemplateOptions {
  /** The first extension's name, lowercase kebab-case (`memory`). */
  readonly name: string;
  /** The new extension point's id (`acme.cache.CacheStore`). */
  readonly pointId: string;
  readonly packageName: string;
  readonly description: string;
  readonly coreVersion: string;
}

/** The files of a plugin package defining a new extension point and its first (default) extension. @internal */
export function extensionFiles(o: ExtensionTemplateOptions): TemplateFile[] {
  const point = o.pointId.slice(o.pointId.lastIndexOf('.') + 1);
  const pointFile = kebabCase(point);
  const impl = `${pascalCase(o.name)}${point}`;
  const implFile = `${o.name}-${pointFile}`;

  const pointSource = `import type { URL } from '@weft/core';
import { SPI } from '@weft/core/spi';

/**
 * ${o.description.replace(/\.$/, '')}: the \`${o.pointId}\` extension point.
 *
 * @remarks
 * Extension point \`${o.pointId}\`, default \`${o.name}\`, application scope (one instance of each extension per
 * application). Packages contribute implementations by shipping \`META-INF/weft/${o.pointId}.json\`; an application
 * looks one up after loading the point, and other extensions inject it:
 * \`\`\`ts
 * await app.loadExtensions(${point});
 * const chosen = app.getExtensionLoader(${point}).getExtension('${o.name}');
 * // in another extension's constructor: @InjectExtension(${point}, '${o.name}') or @InjectLoader(${point})
 * \`\`\`
 * Replace \`handle\` with the contract of your extension point: abstract methods that every implementation
 * provides. Keep this class in its own module and import it from there (never through index.js), so that
 * implementations and the point never form an import cycle.
 *
 * @example
 * \`\`\`ts
 * export class Other${point} extends ${point} {
 *   handle(url: URL, input: string): string { return input; }
 * }
 * \`\`\`
 */
@SPI({ id: '${o.pointId}', default: '${o.name}' })
export abstract class ${point} {
  /**
   * Handles one input; \`url\` carries the configuration (its parameters).
   * @returns the result for \`input\`.
   */
  abstract handle(url: URL, input: string): string;
}
`;

  const implSource = `import type { URL } from '@weft/core';

import { ${point} } from './${pointFile}.js';

/**
 * The \`${o.name}\` extension of \`${o.pointId}\` (its default).
 *
 * @remarks Declared in \`META-INF/weft/${o.pointId}.json\`. Reads the URL key \`prefix\` (default \`${o.name}\`) and
 * answers \`<prefix>: <input>\`; replace with your implementation.
 * @example
 * \`\`\`ts
 * app.getExtensionLoader(${point}).getExtension('${o.name}').handle(URL.parse('x://h/svc?prefix=p'), 'hi'); // 'p: hi'
 * \`\`\`
 */
export class ${impl} extends ${point} {
  handle(url: URL, input: string): string {
    return \`\${url.getParameter('prefix', '${o.name}')}: \${input}\`;
  }
}
`;

  const index = `/**
 * \`${o.packageName}\`: ${o.description}
 *
 * @remarks Defines the extension point \`${o.pointId}\` and contributes its default extension \`${o.name}\` through
 * the manifest \`META-INF/weft/${o.pointId}.json\`.
 * @packageDocumentation
 */
export { ${point} } from './${pointFile}.js';
export { ${impl} } from './${implFile}.js';
`;

  const test = `// Uses the extension point the way an application does: discovered from this package's manifest and imported
// by the extension loader from dist/ (npm test builds first).
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { FrameworkModel, URL, type ApplicationModel } from '@weft/core';

// The loader imports the built modules: the test must use that same copy of the extension point class.
import { ${point} } from '../dist/${pointFile}.js';

const root = fileURLToPath(new globalThis.URL('..', import.meta.url));
let framework: FrameworkModel;
let app: ApplicationModel;

beforeAll(async () => {
  framework = FrameworkModel.create({ root });
  app = framework.newApplication('${o.name}-test');
  await app.loadExtensions(${point});
});

afterAll(() => framework.destroy());

it('is discovered from its manifest, with no problems', () => {
  expect(framework.index.problems).toEqual([]);
  expect(app.getExtensionLoader(${point}).getSupportedExtensions()).toEqual(['${o.name}']);
});

it('is the default ${o.pointId}, configured by the URL', () => {
  const extension = app.getExtensionLoader(${point}).getDefaultExtension();
  expect(extension).toBeInstanceOf(${point});
  expect(extension?.handle(URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?prefix=test'), 'hello')).toBe('test: hello');
  expect(extension?.handle(URL.parse('tri://127.0.0.1:50051/org.acme.Greeter'), 'hello')).toBe('${o.name}: hello');
});
`;

  const readme = `# ${o.packageName}

${o.description}

## Install

\`\`\`sh
npm install ${o.packageName}
\`\`\`

Install it as a \`dependency\` of your application: Weft discovers its extensions from
\`META-INF/weft/${o.pointId}.json\`.

## Usage

\`\`\`ts
import { ${point} } from '${o.packageName}';

await app.model.loadExtensions(${point});
const ${point[0]?.toLowerCase()}${point.slice(1)} = app.model.getExtensionLoader(${point}).getDefaultExtension();
\`\`\`

Other packages add implementations by shipping their own \`META-INF/weft/${o.pointId}.json\`
(\`{ "<name>": { "module": "./dist/<file>.js", "export": "<Class>" } }\`, the class extending \`${point}\`).

## Extension point and extension contributed

| Point | Default | Name | Class |
|---|---|---|---|
| \`${o.pointId}\` | \`${o.name}\` | \`${o.name}\` | \`${impl}\` |

## Options

| Key | Type | Default | Meaning |
|---|---|---|---|
| \`prefix\` | string | \`${o.name}\` | What \`${o.name}\` puts before its answer. |

## Develop

\`\`\`sh
npm install
npm test   # builds dist/, then loads the extension from its manifest
\`\`\`

Try it in an application before publishing it: from the application's folder, install this folder as a
dependency, copied rather than linked (through a link, it would load its own devDependency copy of
\`@weft/core\` next to the application's):

\`\`\`sh
npm install --install-links ../${o.packageName}
\`\`\`

## Differences from Dubbo

A Dubbo extension point is an \`@SPI\` interface with implementations listed in
\`META-INF/dubbo/<interface>\` text files. Here the point is an abstract class with \`@SPI({ id })\`, and
implementations are listed in JSON manifests that tools read without importing code.
`;

  return [
    packageJson({ packageName: o.packageName, description: o.description, coreVersion: o.coreVersion, keywords: [pointFile] }),
    tsconfig(),
    vitestConfig(),
    gitignore(),
    manifest(o.pointId, { [o.name]: { module: `./dist/${implFile}.js`, export: impl, description: `The default ${o.pointId}: answers "<prefix>: <input>".`, keys: ['prefix'] } }),
    { path: `src/${pointFile}.ts`, text: pointSource },
    { path: `src/${implFile}.ts`, text: implSource },
    { path: 'src/index.ts', text: index },
    { path: `test/${implFile}.test.ts`, text: test },
    { path: 'README.md', text: readme },
  ];
}
