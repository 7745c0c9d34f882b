// Builds the console's frontend (ui/) into dist/ui/ with vite: one hashed script, one stylesheet, no inline
// script or style (the server's CSP allows only 'self'), nothing fetched from a CDN.
import { fileURLToPath } from 'node:url';

import { build } from 'vite';

const root = fileURLToPath(new URL('../ui/', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/ui/', import.meta.url));

await build({
  root,
  base: '/',
  configFile: false,
  logLevel: 'warn',
  publicDir: false,
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
