#!/usr/bin/env node
import { main } from '../dist/main.js';

// A reader that stops early (`weft extensions | head`) closes the pipe: stop quietly with the command's exit code,
// as Unix tools do, instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

process.exitCode = await main(process.argv.slice(2), { cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr, env: process.env });
// Commands close what they open; a third-party registry client that leaves a socket or timer behind must not keep
// the command from exiting (the timer itself does not keep the process alive).
setTimeout(() => process.exit(), 3000).unref();
