import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { emptyHookAnswer } from './pipelines/hook-answers.js';
import { Settings } from './settings.js';

// The composition root's share of process state: what a zk-memory process (the command line, the
// MCP server, a worker it starts, or a program embedding the library) sets up once, before any
// call runs. It is the only code that writes the environment, V8's flags or the module cache;
// calls never do, so calls that run at once in one process share none of it.

/** Fewest threads lance's CPU pool may have for a full-text index build to always finish. */
export const MIN_LANCE_CPU_THREADS = 4;

/**
 * The LanceDB runtime settings this process needs, beyond what the user set.
 *
 * Lance builds a full-text index with posting-list producers running on its CPU pool, each handing
 * batches through a one-slot channel to a writer that itself needs a pool thread to encode them.
 * When the producers hold every pool thread, producer and writer wait on each other forever: 0%
 * CPU, an empty file under `_indices/`, no error (lancedb/lancedb#3568, lance-format/lance#7423;
 * facebookexperimental/semcode#61 for the multi-worker case). Lance sizes the pool
 * `max(1, cpus - LANCE_IO_CORE_RESERVATION)` with a reservation of 2 and runs about
 * `(pool + 2) / 2` build workers, so a host with 2 or 3 CPUs gets one thread for one producer, and
 * a 4-CPU host two threads for two producers. With `LANCE_CPU_THREADS` = 4 there are 3 workers
 * and always a thread to spare, at the cost of a little oversubscription on small hosts. Larger
 * hosts (6 CPUs and up) already have a spare thread and are left alone, as is a value the user set.
 */
export function lanceRuntimeEnv(env: NodeJS.ProcessEnv, cpus: number): Record<string, string> {
  if (env.LANCE_CPU_THREADS?.trim()) return {};
  const pool = cpus - 2;
  return pool >= MIN_LANCE_CPU_THREADS ? {} : { LANCE_CPU_THREADS: String(MIN_LANCE_CPU_THREADS) };
}

/**
 * LanceDB's logging, unless the user set it: errors only. Its warnings (k-means leaving clusters
 * empty while it trains a vector index on fewer than 65,536 rows) are advice to whoever tunes the
 * index, printed into the user's terminal mid-search.
 */
export function lanceLogEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return env.LANCEDB_LOG?.trim() ? {} : { LANCEDB_LOG: 'error' };
}

/**
 * ONNX Runtime's telemetry off, unless the user set it: its Linux build starts Microsoft's 1DS
 * telemetry client with the first session, which writes `.ses` and `mat-debug-PID.log` into the
 * temp folder and would upload events over HTTPS. The built-in embedder sends nothing anywhere.
 */
export function onnxTelemetryEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return env.ORT_DISABLE_TELEMETRY?.trim() ? {} : { ORT_DISABLE_TELEMETRY: '1' };
}

/**
 * LanceDB requires apache-arrow's CommonJS build, about 200 modules that cost about 50 ms to load
 * in every process that searches; the package's single-file build exports the same API (the Node
 * build only adds stream adapters LanceDB does not use) and loads in about 12 ms. So the single
 * file is entered in the require cache under the name LanceDB's require resolves to, to be loaded
 * by the first require. Where anything about this does not hold (another layout, arrow already
 * loaded), nothing is changed and LanceDB loads arrow as it ships.
 */
function preferArrowBundle(): void {
  try {
    const fromLance = createRequire(createRequire(import.meta.url).resolve('@lancedb/lancedb'));
    const main = fromLance.resolve('apache-arrow');
    const bundle = path.join(path.dirname(main), 'Arrow.es2015.min.js');
    if (fromLance.cache[main] || !fs.existsSync(bundle)) return;
    Object.defineProperty(fromLance.cache, main, {
      configurable: true,
      enumerable: true,
      get() {
        // Loaded on first use, so a command that never searches never pays for it.
        const mod = fromLance.cache[bundle] ?? (fromLance(bundle), fromLance.cache[bundle]);
        Object.defineProperty(fromLance.cache, main, { value: mod, writable: true, configurable: true, enumerable: true });
        return mod;
      },
    });
  } catch {
    // LanceDB loads arrow itself
  }
}

let prepared = false;

/**
 * Set up this process for zk-memory, once: LanceDB's native runtime reads its thread and log
 * settings when it starts, so they are put in the environment first, as is ONNX Runtime's telemetry
 * switch (off); arrow's single-file build is
 * preferred; and V8 keeps WebAssembly at baseline code (undici's HTTP parser is WebAssembly, which
 * V8 would also compile to optimized code in the background: a short-lived command never runs
 * long enough to gain from that, yet waits for it at exit, about 0.2 s).
 */
export function prepareProcess(): void {
  if (prepared) return;
  prepared = true;
  Object.assign(process.env, lanceRuntimeEnv(process.env, os.availableParallelism()), lanceLogEnv(process.env), onnxTelemetryEnv(process.env));
  preferArrowBundle();
  v8.setFlagsFromString('--liftoff-only');
}

/**
 * How a resident server's process is started (`node ...nodeArgs bin serve ...`, with `env` under
 * the caller's own, a variable the caller set winning): V8's young generation and glibc's malloc
 * arenas kept small. A server keeps for hours what it built of every note, and by default both
 * hold on to the garbage of building it as resident memory (docs/server.md#memory). Neither can be
 * changed once the process runs; a server started by hand is told of them there.
 */
export const SERVER_PROCESS = {
  nodeArgs: ['--max-semi-space-size=8'],
  env: { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' },
} as const;

/**
 * Set up a process that is about to serve a corpus for hours: V8 collects its old generation
 * once it grew by a quarter since the last collection rather than by half or more, so a busy
 * server's memory stays near what it keeps instead of climbing between collections.
 */
export function prepareServerProcess(): void {
  v8.setFlagsFromString('--heap-growing-percent=25');
}

/**
 * Run `stop` when the process is asked to end (SIGTERM, SIGINT, SIGHUP), for a long-running
 * server that removes its socket first; returns the function that takes the handlers away.
 */
export function onStopSignal(stop: (signal: string) => void): () => void {
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, stop);
  return () => {
    for (const s of signals) process.off(s, stop);
  };
}

/**
 * A hook never breaks the agent's session (docs/agents.md): in a `zk-memory hook HOST` process,
 * whatever happens (a deadline passed with the work still running, an exception nobody caught, an
 * exit with an error), the process exits 0 within ZK_MEMORY_HOOK_TIMEOUT having printed an answer the host accepts: the
 * command's own, else the host's empty one. `log` says why in the corpus's `.zk/hooks.log`.
 */
export function guardHook(argv: string[], log: (why: string) => Promise<void>): void {
  let deadlineMs: number;
  try {
    deadlineMs = new Settings(process.env).hookTimeoutMs();
  } catch {
    deadlineMs = new Settings({}).hookTimeoutMs(); // a malformed value: the default
  }
  const empty = emptyHookAnswer(argv[argv.indexOf('hook') + 1]);
  let answered = false;
  const write = process.stdout.write.bind(process.stdout) as (...a: unknown[]) => boolean;
  process.stdout.write = ((...a: unknown[]) => {
    answered = true;
    return write(...a);
  }) as typeof process.stdout.write;
  const answerEmpty = () => {
    if (answered) return;
    answered = true;
    try {
      if (empty) fs.writeSync(1, empty);
    } catch {
      // the host went away
    }
  };
  const bail = (why: string) => {
    const wasAnswered = answered;
    answerEmpty();
    const done = () => process.exit(0);
    if (wasAnswered) return done();
    log(why).then(done, done);
    setTimeout(done, 100).unref();
  };
  setTimeout(() => bail(`no answer within ${deadlineMs} ms: answered empty`), deadlineMs).unref();
  process.on('uncaughtException', (err) => bail(`failed: ${err?.message ?? err}`));
  process.on('unhandledRejection', (err) => bail(`failed: ${(err as Error)?.message ?? err}`));
  process.on('exit', () => {
    answerEmpty();
    process.exitCode = 0;
  });
}
