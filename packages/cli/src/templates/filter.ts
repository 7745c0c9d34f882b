import { gitignore, manifest, packageJson, pascalCase, tsconfig, vitestConfig, type TemplateFile } from './common.js';

/** What `weft new filter` generates from. @internal */
export interface FilterTemplateOptions {
  /** Extension name, lowercase kebab-case (`audit-trail`). */
  readonly name: string;
  readonly packageName: string;
  readonly description: string;
  /** Activation groups: `provider`, `consumer`. */
  readonly groups: readonly ('provider' | 'consumer')[];
  /** The URL key that activates the filter. */
  readonly key: string;
  readonly order: number;
  /** The installed `@weft/core` version (peer range `^<version>`). */
  readonly coreVersion: string;
}

/** The files of a filter plugin package. @internal */
export function filterFiles(o: FilterTemplateOptions): TemplateFile[] {
  const cls = `${pascalCase(o.name)}Filter`;
  const file = `${o.name}-filter`;
  const groups = o.groups.join('/');
  const key = o.key;
  const quotedKey = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `'${key}'`;
  const chain: string[] = [];
  if (o.groups.includes('consumer')) chain.push(` *  consumer: proxy → cluster → [ … → ${o.name} → … ] → protocol invoker`);
  if (o.groups.includes('provider')) chain.push(` *  provider: exporter → [ … → ${o.name} → … ] → service implementation`);
  const listKey = (g: string) => (g === 'provider' ? 'service.filter' : 'reference.filter');
  const firstGroup = o.groups[0] as string;
  const otherGroup = firstGroup === 'provider' ? 'consumer' : 'provider';

  const source = `import { Filter, type Invocation, type Invoker, type Result } from '@weft/core';

/**
 * ${o.description.replace(/\.$/, '')}: the \`${o.name}\` extension of \`weft.rpc.Filter\`.
 *
 * @remarks
 * Extension \`${o.name}\` of \`weft.rpc.Filter\`, declared in \`META-INF/weft/weft.rpc.Filter.json\`; application
 * scope: one instance per application, shared by all its services, so per-call state belongs on the
 * invocation, never on \`this\`. Activated in group ${groups} when the URL sets \`${key}\` (for the service or for
 * any method) to a value other than \`false\`, \`0\`, \`null\` or \`N/A\`; order ${o.order}. The first filter of a
 * chain is outermost:
 * \`\`\`
${chain.join('\n')}
 * \`\`\`
 * On every call it reads \`${key}\` for the called method (\`<method>.${key}\`, else \`${key}\`) and records the value
 * as the invocation attachment \`${key}\`, then continues the chain. Replace that with what your filter does;
 * keep calling \`invoker.invoke(invocation)\` to continue, and map foreign errors to \`RpcError\`.
 *
 * The answer of \`invoker.invoke(invocation)\` is the \`Result\` itself when the call completed synchronously, and a
 * promise of it otherwise: return it as is, or post-process it with
 * \`whenSettled(invoker.invoke(invocation), (result) => …)\` from \`@weft/core\` (an \`async invoke\` that
 * \`await\`s it works too, at the cost of a promise per call) — never call \`.then\` on it directly. Refuse a call
 * by returning a rejected promise of an \`RpcError\`.
 *
 * @example
 * \`\`\`ts
 * // Activate it for one service (provider side), or for one method only:
 * await app.export(Greeter, impl, { parameters: { ${quotedKey}: 'on' } });
 * await app.export(Greeter, impl, { methods: { sayHello: { ${quotedKey}: 'on' } } });
 * \`\`\`
 */
export class ${cls} extends Filter {
  /** Records the configured \`${key}\` value on the invocation, then continues the chain. */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const value = invoker.getUrl().getMethodParameter(invocation.methodName, '${key}');
    if (value !== undefined && value !== '') invocation.setAttachment('${key}', value);
    return invoker.invoke(invocation);
  }
}
`;

  const index = `/**
 * \`${o.packageName}\`: ${o.description}
 *
 * @remarks Contributes the \`${o.name}\` extension of \`weft.rpc.Filter\` through its manifest: installing the
 * package as a dependency of an application is all it takes.
 * @packageDocumentation
 */
export { ${cls} } from './${file}.js';
`;

  const outAssertion =
    o.groups.length === 1
      ? `  expect(filters.selectActivateNames(on, '${listKey(otherGroup)}', '${otherGroup}')).not.toContain('${o.name}');\n`
      : `  expect(filters.selectActivateNames(on, '${listKey(otherGroup)}', '${otherGroup}')).toContain('${o.name}');\n`;
  const test = `// Runs the filter the way an application does: discovered from this package's manifest, imported by the
// extension loader from dist/ (npm test builds first), activated by group and URL key, inside a real chain.
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { buildFilterChain, Filter, FrameworkModel, Invocation, Invoker, Result, URL, type ApplicationModel, type ExtensionLoader } from '@weft/core';

const root = fileURLToPath(new globalThis.URL('..', import.meta.url));
let framework: FrameworkModel;
let app: ApplicationModel;
let filters: ExtensionLoader<Filter>;

beforeAll(async () => {
  framework = FrameworkModel.create({ root });
  app = framework.newApplication('${o.name}-test');
  await app.loadExtensions(Filter);
  filters = app.getExtensionLoader(Filter);
});

afterAll(() => framework.destroy());

it('is discovered from its manifest, with no problems', () => {
  expect(framework.index.problems).toEqual([]);
  expect(filters.getSupportedExtensions()).toContain('${o.name}');
});

it('activates where the manifest says: group ${groups}, only when the URL sets ${key}', () => {
  const on = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?${key}=on');
  expect(filters.selectActivateNames(on, '${listKey(firstGroup)}', '${firstGroup}')).toContain('${o.name}');
${outAssertion}  expect(filters.selectActivateNames(on.removeParameter('${key}'), '${listKey(firstGroup)}', '${firstGroup}')).not.toContain('${o.name}');
  expect(filters.selectActivateNames(on.addParameter('${key}', 'false'), '${listKey(firstGroup)}', '${firstGroup}')).not.toContain('${o.name}');
  expect(filters.selectActivateNames(on.addParameter('${listKey(firstGroup)}', '-${o.name}'), '${listKey(firstGroup)}', '${firstGroup}')).not.toContain('${o.name}');
  const methodLevel = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?sayHello.${key}=on');
  expect(filters.selectActivateNames(methodLevel, '${listKey(firstGroup)}', '${firstGroup}')).toContain('${o.name}');
});

/** The chain the loader activates around a service that answers \`<attachment ${key}> <first argument>\`. */
function chainAround(url: URL, answer: (result: Result) => Result | Promise<Result>): Invoker {
  const service = new (class extends Invoker {
    getUrl(): URL {
      return url;
    }
    invoke(invocation: Invocation): Result | Promise<Result> {
      return answer(Result.of(\`\${String(invocation.getAttachment('${key}'))} \${String(invocation.args[0])}\`));
    }
  })();
  const active = filters.getActivateExtensions(url, '${listKey(firstGroup)}', '${firstGroup}');
  return buildFilterChain(service, active, (f) => filters.getExtensionName(f) ?? '?', app.logger);
}

const configured = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?${key}=on&sayHello.${key}=hello');

it('runs in a chain: records the method-level value and continues, answering a completed call synchronously', () => {
  const chain = chainAround(configured, (result) => result);
  const hello = chain.invoke(new Invocation({ methodName: 'sayHello', args: ['ann'] }));
  expect(hello).toBeInstanceOf(Result); // no promise: the call completed synchronously
  expect((hello as Result).value).toBe('hello ann');
  expect((chain.invoke(new Invocation({ methodName: 'count', args: ['bob'] })) as Result).value).toBe('on bob');
});

it('passes a pending call on: its answer resolves with the result', async () => {
  const chain = chainAround(configured, (result) => new Promise((resolve) => setTimeout(() => resolve(result), 1)));
  const answer = chain.invoke(new Invocation({ methodName: 'sayHello', args: ['ann'] }));
  expect(answer).toBeInstanceOf(Promise);
  expect((await answer).value).toBe('hello ann');
});
`;

  const activation = `group ${o.groups.map((g) => `\`${g}\``).join(', ')}; URL key \`${key}\`; order ${o.order}`;
  const readme = `# ${o.packageName}

${o.description}

## Install

\`\`\`sh
npm install ${o.packageName}
\`\`\`

Install it as a \`dependency\` of your application (not a devDependency): Weft discovers it from its manifest,
\`META-INF/weft/weft.rpc.Filter.json\`. There is nothing to register in code.

## Usage

The filter joins the ${groups} filter chain of every service or reference whose URL sets \`${key}\`:

\`\`\`ts
await app.export(Greeter, impl, { parameters: { ${quotedKey}: 'on' } });
// or for one method only (the filter is then in the chain of every method, and acts on sayHello calls):
await app.export(Greeter, impl, { methods: { sayHello: { ${quotedKey}: 'on' } } });
\`\`\`

See where it lands in the chain, and why, from an application that installed it:

\`\`\`sh
npx weft explain --side ${firstGroup} org.acme.Greeter --param ${key}=on
\`\`\`

## Extension contributed

| Point | Name | Activation |
|---|---|---|
| \`weft.rpc.Filter\` | \`${o.name}\` | ${activation} |

## Options

| Key | Type | Default | Meaning |
|---|---|---|---|
| \`${key}\`, \`<method>.${key}\` | string | unset: the filter is not in the chain | Activates the filter; the value for the called method is recorded as the invocation attachment \`${key}\`. |

## Errors

The filter raises no errors of its own; errors of the rest of the chain pass through unchanged.

## Develop

\`\`\`sh
npm install
npm test   # builds dist/, then runs the filter from its manifest inside a real chain
\`\`\`

Try it in an application before publishing it: from the application's folder, install this folder as a
dependency, copied rather than linked (through a link, it would load its own devDependency copy of
\`@weft/core\` next to the application's):

\`\`\`sh
npm install --install-links ../${o.packageName}
\`\`\`

## Differences from Dubbo

A Dubbo filter is a class listed in \`META-INF/dubbo/org.apache.dubbo.rpc.Filter\` with \`@Activate\` on the class.
Here the manifest carries the name, the module and the activation metadata, so \`weft extensions\` and
\`weft explain\` can show it without importing code.
`;

  return [
    packageJson({ packageName: o.packageName, description: o.description, coreVersion: o.coreVersion, keywords: ['weft-filter'] }),
    tsconfig(),
    vitestConfig(),
    gitignore(),
    manifest('weft.rpc.Filter', {
      [o.name]: {
        module: `./dist/${file}.js`,
        export: cls,
        description: o.description,
        activate: { group: [...o.groups], value: [key], order: o.order },
        keys: [{ key, method: true }],
      },
    }),
    { path: `src/${file}.ts`, text: source },
    { path: 'src/index.ts', text: index },
    { path: `test/${file}.test.ts`, text: test },
    { path: 'README.md', text: readme },
  ];
}
