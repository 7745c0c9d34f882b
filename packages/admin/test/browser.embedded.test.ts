// The console in headless Chromium against real Weft applications (two providers and a consumer over tri) on the
// embedded registry. WEFT_SCREENSHOTS=1 saves the docs screenshots (docs/images/admin-*.png).
import { afterAll, beforeAll, describe } from 'vitest';

import { consoleScenario } from './support/console-scenario.ts';
import { ConsoleWorld, embeddedRegistry } from './support/console-world.ts';

let world: ConsoleWorld | undefined;

beforeAll(async () => {
  world = await ConsoleWorld.start(embeddedRegistry());
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe('the console on the embedded registry', () => {
  consoleScenario(() => world as ConsoleWorld, { screenshots: process.env['WEFT_SCREENSHOTS'] === '1' });
});
