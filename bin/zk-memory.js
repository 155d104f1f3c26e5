#!/usr/bin/env node
import { prepareProcess } from '../dist/src/process.js';
import { main } from '../dist/src/cli.js';

prepareProcess();

// A reader that goes away early (`zk-memory list | head`) is not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
