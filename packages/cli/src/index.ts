/**
 * `@weft/cli`: the `weft` command line — list and explain extensions from manifests, push override rules to a
 * registry, diagnose installs, scaffold plugins.
 *
 * @remarks The package's binary is `weft`; this module exports the same command line as a function, for tools
 * and tests that run it in-process.
 * @packageDocumentation
 */
export { main } from './main.js';
export { ExitCode, type CliIo, type CliOutput } from './io.js';
export { satisfiesRange } from './semver.js';
