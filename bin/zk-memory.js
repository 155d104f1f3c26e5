#!/usr/bin/env node
import { forward } from '../dist/src/server/forward.js';

// A command the corpus's resident server answers goes to it first; only a call answered here
// loads the rest of the tool (docs/server.md).
const argv = process.argv.slice(2);
const forwarded = await forward(argv);

if (forwarded.code !== undefined) {
  process.exitCode = forwarded.code;
} else {
  const { prepareProcess } = await import('../dist/src/process.js');
  const { main, commandLineIo } = await import('../dist/src/cli.js');
  prepareProcess();

  // A reader that goes away early (`zk-memory list | head`) is not an error.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });

  process.exitCode = await main(argv, commandLineIo(forwarded.stdin));
}
