import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Runs `npm run demo` from the repository root, end to end, and checks what it narrates. (Under `npm test`,
// WEFT_SETUP_DONE=1 makes the demo's set-up step a no-op: `npm test` has just done it.)
const repo = fileURLToPath(new URL('../../..', import.meta.url));

describe('npm run demo', () => {
  it('runs the whole tour and exits 0, narrating each outcome', () => {
    const run = spawnSync('npm', ['run', 'demo'], {
      cwd: repo,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, WEFT_SETUP_DONE: process.env['WEFT_SETUP_DONE'] ?? '1' },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(output).not.toContain('the tour failed');
    expect(run.status).toBe(0);
    expect(output).toContain('✔ normal calls answered by the provider');
    expect(output).toContain('✔ protobuf call answered: "Lisbon: sunny, 21 °C (a weft.demo.v1.Conditions message)"');
    expect(output).toContain('→ "day 2: rain, 6…18 °C"');
    expect(output).toContain('✔ server stream: 3 messages, read with for await');
    expect(output).toMatch(/✔ TPS limit: [1-9]\d* of 8 calls rejected with limit-exceeded/);
    expect(output).toContain('✔ fail mock answered: "Hello from the fallback: the provider is unavailable"');
    expect(output).toContain('✔ force mock seen: "Hello from the force mock (pushed at runtime)"');
    expect(output).toMatch(/✔ access log: [1-9]\d* lines in /);
    expect(output).toContain('Tour complete.');
  }, 150_000);
});
