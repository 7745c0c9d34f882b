import { createReadStream, existsSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** What is answered when the UI was not built (`dist/ui/` missing): no script, no style, nothing inline. */
const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Weft admin</title></head>
<body><h1>Weft admin</h1><p>The web UI is not built: run <code>npm run build</code> in packages/admin (it builds <code>dist/ui/</code>).
The JSON API is available under <code>/api/</code>.</p></body></html>
`;

/**
 * Serves the built web UI from a folder (`dist/ui/`): files by path, `index.html` for every other path (the UI
 * routes in the browser), a built-in page saying the UI is not built when the folder is missing.
 *
 * @remarks Only `GET`/`HEAD`; paths are normalised and must stay inside the folder (no `..`, no dot files).
 * @example
 * ```ts
 * const files = new StaticFiles('/opt/weft/node_modules/@weft/admin/dist/ui');
 * files.serve('/index.html', res, false);
 * ```
 */
export class StaticFiles {
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Answers `path` (the URL's path, decoded) from the folder. */
  serve(path: string, res: ServerResponse, head: boolean): void {
    const index = join(this.root, 'index.html');
    if (!existsSync(index)) {
      res.writeHead(path === '/' || path === '/index.html' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(NOT_BUILT) });
      res.end(head ? undefined : NOT_BUILT);
      return;
    }
    let file = index;
    const relative = normalize(path).replace(/^[/\\]+/, '');
    if (relative !== '' && !relative.split(/[/\\]/).some((part) => part.startsWith('.'))) {
      const candidate = resolve(this.root, relative);
      if (candidate.startsWith(this.root + sep) && existsSync(candidate) && statSync(candidate).isFile()) file = candidate;
      else if (extname(relative) !== '.html' && TYPES[extname(relative).toLowerCase()] !== undefined) {
        // a missing asset is a 404, not the app page (a wrong script must not be "answered" with HTML); a UI route
        // such as /services/org.acme.Greeter is not an asset
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(head ? undefined : `not found: ${relative.slice(0, 200)}\n`);
        return;
      }
    }
    const size = statSync(file).size;
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': size });
    if (head) {
      res.end();
      return;
    }
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  }
}
