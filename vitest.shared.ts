import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/**
 * Shared vitest project settings for every package.
 *
 * Decorators: packages use TypeScript's legacy (experimental) decorators with emitted metadata, so the
 * oxc transform is told to do the same. Built packages (`dist/`) are always loaded by Node itself, never
 * re-transformed, so a test and the extensions it loads share one copy of `@weft/core`.
 */
export function weftProject(name: string, overrides: UserWorkspaceConfig['test'] = {}) {
  return defineProject({
    oxc: { decorator: { legacy: true, emitDecoratorMetadata: true } },
    test: {
      name,
      include: ['test/**/*.test.ts'],
      environment: 'node',
      testTimeout: 20_000,
      hookTimeout: 60_000,
      server: { deps: { external: [/\/dist\//, /node_modules/, /\/test\/fixtures\//] } },
      ...overrides,
    },
  } as Parameters<typeof defineProject>[0]);
}
