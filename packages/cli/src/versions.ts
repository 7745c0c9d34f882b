/**
 * The tool versions scaffolded packages pin in their devDependencies: the versions Weft's own repository pins
 * (a test keeps the two equal).
 * @internal
 */
export const TOOL_VERSIONS = {
  typescript: '5.9.3',
  vitest: '4.1.12',
  '@types/node': '20.19.43',
} as const;
