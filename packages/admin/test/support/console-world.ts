// The world the browser tests drive: two Greeter providers and a consumer (real Weft applications over tri) on a
// registry, the consumer's /metrics endpoint, the console (startAdmin) and one headless Chromium page.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

import { startAdmin, type AdminServer } from '@weft/admin';
import { defineService, WeftApplication } from '@weft/core';
import { metricsOf } from '@weft/filter-metrics';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

/** The service the tests govern. */
export const GREETER = 'org.acme.Greeter';

/** `sayHello` is what the tests degrade; `count` shows other methods are untouched. */
export const Greeter = defineService(GREETER, {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
});

/** A second service (provider a only, no consumer), so the list has something to filter out. */
export const Inventory = defineService('org.acme.Inventory', { stock: { args: [String], returns: Number } });

/** The consumer's typed proxy. */
export type GreeterProxy = {
  sayHello(name: string): Promise<string>;
  count(): Promise<number>;
  $call(method: 'sayHello', args: [string], options: { attachments: Record<string, string> }): Promise<string>;
};

const PACKAGES = ['@weft/core', '@weft/cluster', '@weft/mock', '@weft/protocol-triple', '@weft/registry-embedded', '@weft/registry-zookeeper', '@weft/filter-metrics', '@weft/filter-circuitbreaker', '@weft/routers'];

const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Polls `probe` until `ok` holds (bounded); returns the last value. */
export async function eventually<T>(probe: () => Promise<T> | T, ok: (value: T) => boolean, ms = 10_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  let failure: unknown;
  for (;;) {
    try {
      last = await probe();
      failure = undefined;
      if (ok(last)) return last;
    } catch (error) {
      failure = error;
    }
    if (Date.now() > deadline) throw new Error(`${what} was not met within ${ms} ms (last: ${failure !== undefined ? String(failure) : JSON.stringify(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Waits until `locator`'s text matches `pattern`; returns the text. */
export function textOf(locator: Locator, pattern: RegExp, ms = 10_000): Promise<string> {
  return eventually(async () => (await locator.innerText({ timeout: 1000 })).trim(), (text) => pattern.test(text), ms, `text ${String(pattern)}`);
}

/** What {@link ConsoleWorld.start} needs: the registry the applications use, and the one the console uses. */
export interface WorldRegistry {
  /** For the applications (may carry `poll.interval`, `file-cache`). */
  readonly apps: string;
  /** For the console. */
  readonly admin: string;
  dispose(): Promise<void>;
}

/** An embedded registry in a temporary folder. */
export function embeddedRegistry(): WorldRegistry {
  const dir = mkdtempSync(join(tmpdir(), 'weft-admin-registry-'));
  return {
    apps: `embedded://${dir}?poll.interval=50&file-cache=false`,
    admin: `embedded://${dir}`,
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The applications, the console and the browser of one test file. */
export class ConsoleWorld {
  private readonly apps: WeftApplication[] = [];
  private constructor(
    readonly registry: WorldRegistry,
    private readonly testApp: TestApp,
    readonly providers: { readonly label: string; readonly address: string; readonly calls: { sayHello: number } }[],
    readonly consumer: WeftApplication,
    readonly greeter: GreeterProxy,
    readonly metricsUrl: string,
    readonly admin: AdminServer,
    readonly adminLogger: RecordingLogger,
    readonly browser: Browser,
    readonly context: BrowserContext,
    readonly page: Page,
    /** Script errors and console errors of the page (CSP violations among them). */
    readonly problems: readonly string[],
    private readonly closeMetrics: () => Promise<void>,
    apps: WeftApplication[],
  ) {
    this.apps = apps;
  }

  /** Starts everything on `registry`. */
  static async start(registry: WorldRegistry): Promise<ConsoleWorld> {
    const testApp = createTestApp(PACKAGES, { prefix: 'weft-admin-browser' });
    const apps: WeftApplication[] = [];
    const started = async (name: string): Promise<WeftApplication> => {
      const app = await WeftApplication.start({ root: testApp.root, name, registry: registry.apps, logger: new RecordingLogger() });
      apps.push(app);
      return app;
    };
    try {
      const providers = [];
      for (const label of ['a', 'b']) {
        const app = await started(`greeter-${label}`);
        const port = await freePort();
        const calls = { sayHello: 0 };
        await app.export(
          Greeter,
          {
            sayHello: (name: string) => {
              calls.sayHello++;
              return `hello ${name} from ${label}`;
            },
            count: () => 42,
          },
          { protocol: 'tri', host: '127.0.0.1', port },
        );
        if (label === 'a') await app.export(Inventory, { stock: () => 7 }, { protocol: 'tri', host: '127.0.0.1', port });
        providers.push({ label, address: `127.0.0.1:${port}`, calls });
      }
      const consumer = await started('shop');
      const metrics = await metricsOf(consumer).listen({ port: 0 });
      const greeter = (await consumer.refer(Greeter, { check: false, retries: 0, timeout: 2000 })) as unknown as GreeterProxy;
      await eventually(() => greeter.sayHello('ann'), (answer) => /^hello ann from [ab]$/.test(answer), 15_000, 'the consumer reaching a provider');
      const adminLogger = new RecordingLogger();
      const admin = await startAdmin({ registry: registry.admin, port: 0, token: 'browser-test-token', metrics: [metrics.url], scrapeInterval: 500, logger: adminLogger });
      const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
      const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
      const page = await context.newPage();
      page.setDefaultTimeout(8000);
      // Script errors and CSP violations (answers of 4xx the tests provoke are logged too, and left out).
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console error: ${message.text()}`);
      });
      return new ConsoleWorld(registry, testApp, providers, consumer, greeter, metrics.url, admin, adminLogger, browser, context, page, problems, () => metrics.close(), apps);
    } catch (error) {
      for (const app of apps.reverse()) await app.shutdown({ timeout: 1000 }).catch(() => undefined);
      testApp.cleanup();
      throw error;
    }
  }

  /** Logs the page in with the console's token. */
  async logIn(): Promise<void> {
    await this.page.goto(this.admin.url);
    await this.page.getByLabel('Token').fill(this.admin.token);
    await this.page.getByRole('button', { name: 'Log in' }).click();
    await this.page.getByRole('heading', { name: 'Services', level: 1 }).waitFor();
  }

  /** Opens the service page of {@link GREETER}. */
  async openGreeter(): Promise<void> {
    await this.page.goto(`${this.admin.url}/#/services/${encodeURIComponent(GREETER)}`);
    await this.page.getByRole('heading', { name: GREETER, level: 1 }).waitFor();
    await this.page.getByRole('table', { name: 'Providers' }).getByRole('row').nth(2).waitFor();
  }

  /** Confirms the plan dialog (after a screenshot `screenshot`, if given); returns its zkCli.sh and weft CLI text. */
  async applyPlan(screenshot?: string): Promise<{ summary: string; zkCli: string; cli: string }> {
    const dialog = this.page.getByRole('dialog', { name: 'Confirm change' });
    await dialog.waitFor();
    if (screenshot !== undefined) await this.screenshot(screenshot, false);
    const plan = {
      summary: (await dialog.locator('.summary').innerText()).trim(),
      zkCli: (await dialog.getByLabel('zkCli.sh commands').innerText()).trim(),
      cli: (await dialog.getByLabel('weft CLI command').innerText()).trim(),
    };
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await textOf(this.page.getByRole('status').filter({ hasText: 'Applied' }), /^Applied: /);
    return plan;
  }

  /** Saves a screenshot to docs/images/admin-<name>.png when WEFT_SCREENSHOTS=1. */
  async screenshot(name: string, fullPage = true): Promise<void> {
    if (process.env['WEFT_SCREENSHOTS'] !== '1') return;
    await this.page.screenshot({ path: join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'images', `admin-${name}.png`), fullPage });
  }

  /** Stops the browser, the console, the applications; deletes the registry. */
  async close(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    await this.admin.close().catch(() => undefined);
    await this.closeMetrics().catch(() => undefined);
    for (const app of this.apps.reverse()) await app.shutdown({ timeout: 1000 }).catch(() => undefined);
    this.testApp.cleanup();
    await this.registry.dispose();
  }
}
