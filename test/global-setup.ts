import { execa } from 'execa';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareProcess } from '../src/process.js';
import { serverPids } from './helpers/servers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Build once before any test, so a test that runs the CLI as a process never runs a stale dist/;
 * give the run a temp folder of its own, and fail the run if a test left anything in it.
 */
export default async function setup(): Promise<() => Promise<void>> {
  await buildUnlessFresh();
  // The test workers run the CLI in-process: they get the process set-up the command line's entry makes.
  prepareProcess();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-run-'));
  // The test workers are started after this and inherit it, as do the processes they start.
  process.env.TMPDIR = tmp;
  // Commands answer in-process unless a test asks for the resident server (test/server.test.ts),
  // whose sockets go to a runtime folder of the run's own.
  process.env.ZK_MEMORY_SERVER = 'off';
  // Searches stay lexical unless a test asks for the built-in embedder (test/embed-local.test.ts):
  // loading and running the model in every test would cost more CPU than the run has.
  process.env.ZK_MEMORY_EMBED = 'off';
  const runtime = path.join(tmp, 'runtime');
  fs.mkdirSync(runtime, { mode: 0o700 });
  process.env.XDG_RUNTIME_DIR = runtime;
  // HTTP tokens are kept in the user's state folder: the run's own, never the developer's.
  const state = path.join(tmp, 'state');
  fs.mkdirSync(state, { mode: 0o700 });
  process.env.XDG_STATE_HOME = state;
  // The registry of corpora by name is kept in the user's config folder: the run's own too.
  const config = path.join(tmp, 'config');
  fs.mkdirSync(config, { mode: 0o700 });
  process.env.XDG_CONFIG_HOME = config;
  return async () => {
    // A server whose corpus a test removed ends by itself within 5 s (docs/server.md); any other is left running.
    let running = serverPids((args) => args.some((a) => a.startsWith(tmp)));
    for (const until = Date.now() + 6000; running.length && Date.now() < until; running = serverPids((args) => args.some((a) => a.startsWith(tmp))))
      await new Promise((r) => setTimeout(r, 200));
    for (const pid of running) process.kill(pid, 'SIGKILL');
    fs.rmSync(runtime, { recursive: true, force: true });
    fs.rmSync(state, { recursive: true, force: true });
    fs.rmSync(config, { recursive: true, force: true });
    // vitest reports an error thrown here but still exits 0: the exit code is set as well.
    if (running.length) failRun(`tests left ${running.length} server(s) running: pid ${running.join(', ')}`);
    const left = fs.readdirSync(tmp);
    fs.rmSync(tmp, { recursive: true, force: true });
    if (left.length) failRun(`tests left ${left.length} temp folder(s) behind: ${left.slice(0, 5).join(', ')}`);
  };
}

/** What the build reads: a change to any of these files, or one added or removed, makes dist/ stale. */
const BUILD_INPUTS = ['src', 'bench', 'web', 'scripts', 'tsconfig.json', 'package.json', 'package-lock.json'];
/** Where the build leaves the hash of its inputs, so the next run knows dist/ is theirs. */
const STAMP = path.join(REPO, 'dist', '.inputs-sha256');
/**
 * What a run needs of dist/: a build that lost one of these is made again, whatever the stamp says,
 * and so is one where any is newer than the stamp (made since by `npm run build`, maybe of other sources).
 */
const OUTPUTS = ['dist/src/cli.js', 'dist/src/server/forward.bundle.js', 'dist/web/viewer.js'];

/** sha256 of every input file's path and content (bench/out, the bench's results, left out). */
function inputsHash(): string {
  const hash = crypto.createHash('sha256');
  const add = (rel: string) => {
    const abs = path.join(REPO, rel);
    const st = fs.statSync(abs, { throwIfNoEntry: false });
    if (st?.isDirectory()) {
      for (const name of fs.readdirSync(abs).sort())
        if (name !== 'node_modules' && path.join(rel, name) !== path.join('bench', 'out')) add(path.join(rel, name));
    } else if (st?.isFile()) hash.update(`${rel}\0${st.size}\0`).update(fs.readFileSync(abs));
  };
  for (const rel of BUILD_INPUTS) add(rel);
  return hash.digest('hex');
}

/**
 * Build dist/ (tsc, then the viewer's and the command line's bundles) unless the last build was
 * of these very inputs: a process a test starts runs dist/, which must never be stale, and a
 * build costs seconds of CPU that `npm run test:quick` would otherwise spend on every run.
 */
async function buildUnlessFresh(): Promise<void> {
  const inputs = inputsHash();
  const stamp = fs.statSync(STAMP, { throwIfNoEntry: false });
  const fresh =
    stamp !== undefined &&
    fs.readFileSync(STAMP, 'utf8') === inputs &&
    OUTPUTS.every((f) => (fs.statSync(path.join(REPO, f), { throwIfNoEntry: false })?.mtimeMs ?? Infinity) <= stamp.mtimeMs);
  if (fresh) return;
  fs.rmSync(STAMP, { force: true });
  await execa('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: REPO, stdio: 'inherit' });
  // The viewer's browser assets (dist/web/), which the resident server serves.
  await execa('node', ['scripts/build-web.mjs'], { cwd: REPO, stdio: 'inherit' });
  // The command line's first step, bundled into one file (bin/zk-memory.js loads it).
  await execa('node', ['scripts/build-cli.mjs'], { cwd: REPO, stdio: 'inherit' });
  fs.writeFileSync(STAMP, inputs);
}

function failRun(message: string): never {
  process.exitCode = 1;
  throw new Error(message);
}
