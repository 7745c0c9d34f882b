// The docs site (`npm run docs`: typedoc with the repository's typedoc.json), built, served over loopback HTTP and
// looked at in headless Chromium (Debian's `chromium`, installed by scripts/install-chromium.sh; playwright-core
// drives it and never downloads a browser). Screenshots of the landing page and of the getting-started guide are
// saved to .weft-tmp/docs-site-*.png.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const outDir = join(repoRoot, '.weft-tmp');
const site = join(outDir, 'docs-site');
const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Every file the site is built from: a changed one means a rebuild; none changed reuses the last build. */
function inputsFingerprint(): string {
  const hash = createHash('sha256');
  const add = (path: string): void => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort()) {
        if (entry === 'node_modules' || entry === 'dist' || entry === 'api' || entry === 'test') continue;
        add(join(path, entry));
      }
    } else if (/\.(md|ts|json)$/.test(path)) {
      hash.update(relative(repoRoot, path)).update(readFileSync(path));
    }
  };
  for (const top of ['typedoc.json', 'tsconfig.base.json', 'docs', 'packages']) add(join(repoRoot, top));
  hash.update(readFileSync(join(repoRoot, 'node_modules', 'typedoc', 'package.json')));
  return hash.digest('hex');
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json' };

function serve(root: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    let file = normalize(join(root, path));
    if (!file.startsWith(root + sep) && file !== root) {
      response.writeHead(403).end();
      return;
    }
    // The site has no favicon; the browser asks for one anyway, and a 404 would show as a console error.
    if (path === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let server: Server;
let base: string;
let browser: Browser;
const problems: string[] = [];

async function open(path: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${path}: console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`${path}: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`${path}: request failed: ${request.url()}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${path}: HTTP ${response.status()} for ${response.url()}`);
  });
  await page.goto(`${base}/${path}`, { waitUntil: 'load' });
  return page;
}

/** Types a query into the search dialog of a freshly opened page (no earlier results), returns the results. */
async function search(path: string, query: string): Promise<string[]> {
  const page = await open(path);
  await page.click('#tsd-search-trigger');
  await page.fill('#tsd-search-input', query);
  await page.waitForFunction(() => document.querySelectorAll('#tsd-search-results li').length > 0, undefined, { timeout: 10_000 });
  const results = await page.$$eval('#tsd-search-results li', (items) => items.map((li) => (li.textContent ?? '').trim()));
  await page.close();
  return results;
}

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  const fingerprint = inputsFingerprint();
  const stamp = join(site, '.inputs-fingerprint');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== fingerprint) {
    rmSync(site, { recursive: true, force: true });
    const build = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'typedoc', 'bin', 'typedoc'), '--out', site], { cwd: repoRoot, encoding: 'utf8', timeout: 280_000 });
    // typedoc.json sets treatWarningsAsErrors: a single warning fails the build.
    if (build.status !== 0) throw new Error(`typedoc failed (exit ${String(build.status)}):\n${build.stdout}\n${build.stderr}`);
    writeFileSync(stamp, fingerprint);
  }
  server = await serve(site);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu'] });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
});

describe('the docs site', () => {
  it('renders the guides and references as pages, never as raw media/*.md files', () => {
    expect(readdirSync(join(site, 'documents')).sort()).toEqual([
      'Calling_Java_Dubbo_services.html',
      'Concepts.html',
      'Declaring_types.html',
      'Degradation.html',
      'Error_codes.html',
      'Filters.html',
      'Getting_started.html',
      'Governance.html',
      'Manifest_reference.html',
      'Observability.html',
      'Operating_Weft.html',
      'Security.html',
      'URL_parameters.html',
      'Writing_an_extension.html',
      'gRPC_and_protobuf.html',
    ]);
    const media = existsSync(join(site, 'media')) ? readdirSync(join(site, 'media')).filter((f) => f.endsWith('.md')) : [];
    expect(media).toEqual([]);
  });

  it('opens on the user-facing landing page, which leads to the getting-started guide', async () => {
    const page = await open('index.html');
    expect(await page.title()).toBe('Weft');
    await expect(page.locator('h1', { hasText: /^Weft$/ }).isVisible()).resolves.toBe(true);
    expect(await page.locator('h1, h2').allInnerTexts()).toEqual(['Weft', 'Start here', 'Guides', 'Reference', 'Install']);
    await expect(page.locator('h2', { hasText: 'Start here' }).isVisible()).resolves.toBe(true);
    // The landing page is docs/index.md, not the contributors' README.
    expect(await page.locator('.tsd-panel.tsd-typography').first().innerText()).not.toContain('npm test');
    await page.screenshot({ path: join(outDir, 'docs-site-landing.png'), fullPage: false });
    await page.click('.tsd-typography a:text-is("Getting started")');
    await page.waitForURL(/documents\/Getting_started\.html$/);
    expect(await page.title()).toBe('Getting started | Weft');
    await page.close();
  });

  it('shows the getting-started guide with its heading, its files and its commands', async () => {
    const page = await open('documents/Getting_started.html');
    expect(await page.title()).toBe('Getting started | Weft');
    await expect(page.locator('h1', { hasText: /^Getting started$/ }).isVisible()).resolves.toBe(true);
    await expect(page.locator('h2', { hasText: '1. Create the application and install Weft' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('pre', { hasText: '// src/greeter.ts' }).isVisible()).resolves.toBe(true);
    await expect(page.locator('pre', { hasText: 'npm install --save-dev @weft/cli' }).isVisible()).resolves.toBe(true);
    // The sidebar lists the guides as pages.
    await expect(page.locator('.site-menu a', { hasText: 'Writing an extension' }).first().isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(outDir, 'docs-site-getting-started.png'), fullPage: false });
    await page.close();
  });

  it('search finds guide text: "getting started" and "mock" lead to guide pages', async () => {
    const started = await search('index.html', 'getting started');
    expect(started[0], started.join(' | ')).toBe('Getting started');
    const mock = await search('index.html', 'mock');
    // The guide about mocks comes first, ahead of the API's Mock* symbols.
    expect(mock[0], mock.join(' | ')).toBe('Degradation');
    expect(mock, mock.join(' | ')).toEqual(expect.arrayContaining(['Governance', 'Concepts']));
  });

  it('no page logged an error or failed to load a resource', () => {
    expect(problems).toEqual([]);
  });
});
