#!/usr/bin/env node

// A command the corpus's resident server answers goes to it first; only a call answered here
// loads the rest of the tool (docs/server.md). `--version` loads nothing else at all.
const argv = process.argv.slice(2);

// A reader that goes away early (`zk-memory list | head`) is not an error, whoever answered.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

// A hook answers its host in time and exits 0, whatever happens (docs/agents.md).
const hookAt = argv.indexOf('hook');
if (hookAt === 0 || (hookAt === 2 && argv[0] === '--root') || (hookAt === 1 && argv[0].startsWith('--root='))) {
  const { guardHook } = await import('../dist/src/process.js');
  guardHook(argv, async (why) => {
    const { logHookProcess } = await import('../dist/src/pipelines/hook-log.js');
    await logHookProcess(argv, process.env, process.cwd(), { outcome: 'guard', error: why });
  });
}

if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { version } = await import('../dist/src/version.js');
  process.stdout.write(`${version()}\n`);
} else if (argv[0] === 'merge-driver' && argv.length >= 4 && !argv.slice(argv[1] === '--trace' ? 2 : 1).some((a) => a.startsWith('-'))) {
  // git runs the merge driver once per file it merges: it loads the merge alone.
  const { runMergeDriver } = await import('../dist/src/sync/driver.js');
  process.exitCode = runMergeDriver(argv.slice(1), (s) => process.stderr.write(s));
} else {
  // src/server/forward.ts, bundled into one file (scripts/build-cli.mjs).
  const { forward } = await import('../dist/src/server/forward.bundle.js');
  const forwarded = await forward(argv);
  if (forwarded.code !== undefined) process.exitCode = forwarded.code;
  else {
    await inProcess(forwarded.stdin);
    await forwarded.after?.();
  }
}

async function inProcess(stdin) {
  const { prepareProcess } = await import('../dist/src/process.js');
  const { main, commandLineIo } = await import('../dist/src/cli.js');
  prepareProcess();
  // The process's own start counts against a hook host's patience (startedAt 0).
  process.exitCode = await main(argv, commandLineIo(stdin), process.env, { startedAt: 0 });
}
