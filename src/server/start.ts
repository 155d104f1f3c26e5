import fs from 'node:fs';
import type { Env } from '../settings.js';
import { SERVER_PROCESS } from '../process.js';
import { binPath } from '../version.js';
import { ask, type Outcome } from './client.js';

/** How long a client waits for a server it started to listen; while that process lives, up to START_LIMIT_MS. */
const START_WAIT_MS = 10_000;
const START_LIMIT_MS = 60_000;

/** After this many failures in a row, a client stops asking the server for BACKOFF_MS. */
const FAILURES_BEFORE_BACKOFF = 2;
const BACKOFF_MS = 60_000;

/**
 * Start a server for `root` in the background, detached from this process: it outlives the call
 * that started it and exits after its idle limit. Two started at once give one server (the loser
 * finds the socket taken and exits). `running` says whether the process started is still alive.
 */
export async function startServer(root: string, env: Env): Promise<{ running(): boolean }> {
  try {
    // Loaded here: a call that a running server answers never starts one, and loading it costs a millisecond.
    const { startDetached } = await import('../adapters/processes.js');
    const args = [...SERVER_PROCESS.nodeArgs, binPath(), 'serve', '--background', '--root', root];
    // A fault seam is the command's own (a test of that command): the server, shared, never takes it.
    const { ZK_MEMORY_FAULT: _fault, ...own } = env;
    return startDetached(process.execPath, args, { ...SERVER_PROCESS.env, ...own });
  } catch {
    // no server this time: the call is answered in-process all the same
    return { running: () => false };
  }
}

/**
 * A server of another build answered on `sock`: one a command started in the background is asked
 * to stop (true: the caller starts one of its own build). One run by `serve`, or serving MCP over
 * HTTP, is never asked to make way, as remote agents and whoever runs it count on it (false: the
 * caller answers in-process, and says why once for that server).
 */
export async function makeWay(sock: string, build: string): Promise<boolean> {
  const out = await ask(sock, { kind: 'status', build });
  const state = 'accepted' in out ? out.state : undefined;
  if (!state) return true; // gone meanwhile: nothing to keep
  if (state.background === true && !state.http) {
    await ask(sock, { kind: 'stop', build });
    return true;
  }
  sayOnce(
    sock,
    `${state.pid} ${state.since} ${build}`,
    `the corpus's server (pid ${state.pid}) is of another build (${state.build}) and was started by \`serve\`${state.http ? ' with MCP over HTTP' : ''}, so it keeps running: commands of this build answer in-process until it is restarted`,
  );
  return false;
}

/** Say `message` on stderr unless it was said already for `key` (a file beside the socket remembers the last). */
function sayOnce(sock: string, key: string, message: string): void {
  const file = `${sock}.told`;
  try {
    if (fs.readFileSync(file, 'utf8') === key) return;
  } catch {
    // not said yet
  }
  process.stderr.write(`warning: ${message}\n`);
  try {
    fs.writeFileSync(file, key, { mode: 0o600 });
  } catch {
    // said again next time
  }
}

/** The file beside a socket that counts its server's recent failures. */
function failuresFile(sock: string): string {
  return `${sock}.failed`;
}

// Failures are dated by the wall clock, not a monotonic one: the record is a file that every
// client process reads, and performance.now() means nothing outside the process that read it.

/** Whether the server of `sock` failed often enough lately that clients leave it alone for a while. */
export function backingOff(sock: string, now = Date.now()): boolean {
  try {
    const { count, at } = JSON.parse(fs.readFileSync(failuresFile(sock), 'utf8')) as { count: number; at: number };
    return count >= FAILURES_BEFORE_BACKOFF && now - at < BACKOFF_MS;
  } catch {
    return false;
  }
}

/** Count one failure of the server of `sock` (a fresh count once the last backoff has passed). */
export function recordFailure(sock: string, now = Date.now()): void {
  let count = 0;
  try {
    const last = JSON.parse(fs.readFileSync(failuresFile(sock), 'utf8')) as { count: number; at: number };
    count = now - last.at < BACKOFF_MS ? last.count : 0;
  } catch {
    // the first failure
  }
  try {
    fs.writeFileSync(failuresFile(sock), JSON.stringify({ count: count + 1, at: now }), { mode: 0o600 });
  } catch {
    // not kept: the next call asks again
  }
}

/** Forget the failures of the server of `sock`: it answered. */
export function clearFailures(sock: string): void {
  fs.rmSync(failuresFile(sock), { force: true });
}

/**
 * Ask the corpus's server with `asking`, starting one when none answers: a server of another build
 * is stopped first, and one that failed is given up on at once unless `patient` (a caller whose
 * server just went away waits out the start of the next, which may fail a request or two while
 * another client's start races it). A loaded machine may take long to start one: the wait goes on
 * while the process started lives.
 */
export async function askStarting(
  sock: string,
  root: string,
  env: Env,
  build: string,
  asking: () => Promise<Outcome>,
  o: { patient?: boolean } = {},
): Promise<Outcome> {
  let out = await asking();
  if (!('unavailable' in out) || (out.unavailable === 'failed' && !o.patient)) return out;
  if (out.unavailable === 'another build' && !(await makeWay(sock, build))) return out;
  let started = await startServer(root, env);
  const began = performance.now();
  const waiting = () => performance.now() - began < (started.running() ? START_LIMIT_MS : START_WAIT_MS);
  while (!('accepted' in out) && waiting()) {
    await new Promise((r) => setTimeout(r, 50));
    out = await asking();
    // the one started lost a race to a server that then went too
    if ('unavailable' in out && out.unavailable === 'absent' && !started.running()) started = await startServer(root, env);
  }
  return out;
}
