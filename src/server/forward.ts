import fs from 'node:fs';
import { namedRoot, rootOf } from '../api/root.js';
import { asZkError, errorJson, EXIT, ZkError } from '../errors.js';
import { Settings } from '../settings.js';
import { processStdin } from '../command-line/stdin.js';
import { ask } from './client.js';
import { bridgeSession, connectSession } from './bridge.js';
import { buildId, MAX_REQUEST_BYTES, type CallRequest } from './protocol.js';
import { servedCommand, servedWrite } from '../command-line/served.js';
import { callSettings } from '../call-settings.js';
import { extractGlobals } from '../command-line/globals.js';
import { ensureSocketFolder, socketFolder, socketPath } from './socket-path.js';
import { backingOff, clearFailures, makeWay, recordFailure, startServer } from './start.js';

// The command line's first step (bin/zk-memory.js), loading only what asking a server needs: a
// command the corpus's resident server answers is sent to it, and the rest of the tool is loaded
// only when the call is answered in-process (docs/server.md).

/** What the command line does next: exit with `code` (answered), or run in-process with `stdin`. */
export type Forwarded = { code: number } | { code?: undefined; stdin: () => string | undefined; after?: () => Promise<unknown> };

export async function forward(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<Forwarded> {
  const stdin = processStdin();
  const inProcess: Forwarded = { stdin };
  let parsed: ReturnType<typeof extractGlobals>;
  try {
    parsed = extractGlobals(argv);
  } catch {
    return inProcess; // the in-process command says what is wrong
  }
  const command = servedCommand(parsed.rest);
  if (!command) return inProcess;
  const settings = new Settings(env);
  let mode: 'auto' | 'on' | 'off';
  let root: string;
  let sock: string;
  try {
    mode = settings.serverMode();
    if (mode === 'off') return inProcess;
    root = rootOf(parsed.globals.root, namedRoot(settings, parsed.globals.corpora), process.cwd());
    if (!fs.existsSync(`${root}/.zk`)) return inProcess; // not a corpus yet: the command says so
    const folder = socketFolder(settings);
    ensureSocketFolder(folder);
    sock = socketPath(folder, root);
  } catch (err) {
    // a setting, root or socket folder in error: the in-process command says what is wrong, or `on` does
    return mode! === 'on' && err instanceof ZkError ? fail(parsed.globals.json, err) : inProcess;
  }
  if (mode === 'auto' && backingOff(sock)) return inProcess;
  const build = buildId();
  // The command, its arguments and the settings that belong to it: the server's process settings stay its own.
  const request: CallRequest = { kind: command === 'mcp' ? 'mcp' : 'call', build, command, argv, settings: callSettings(env), cwd: process.cwd() };
  if (command === 'mcp')
    return bridge(
      sock,
      root,
      request,
      env,
      mode === 'on' ? (why) => fail(parsed.globals.json, new ZkError('no_server', `no server for ${root}: ${why}`)) : () => inProcess,
    );
  const write = servedWrite(command);
  // The query of `search -`, a hook's input and a write's text come from stdin: read here, and handed on if the call stays in-process.
  if (command === 'search' || command === 'hook' || write) {
    try {
      request.stdin = stdin();
    } catch {
      return inProcess; // the in-process command reports it
    }
  }
  // More than a server reads in a request (a very long query piped in): answered here.
  if (Buffer.byteLength(JSON.stringify(request)) > MAX_REQUEST_BYTES) return inProcess;
  let out = await ask(sock, request, { write });
  // A write the server answered stays answered, whatever it says: it is never made a second time.
  if (!write && 'answer' in out && outOfResources(out.answer)) out = { unavailable: 'failed', reason: 'the server ran out of files or memory' };
  if ('unknown' in out) {
    recordFailure(sock);
    const e = new ZkError(
      'outcome_unknown',
      `the server of ${root} stopped before answering (${out.unknown}): the ${command} may or may not have been made; look (zk-memory read, list --recent) before running it again`,
    );
    return fail(parsed.globals.json, e, true);
  }
  if ('answer' in out) {
    clearFailures(sock);
    process.stdout.write(out.answer.stdout);
    process.stderr.write(out.answer.stderr);
    return { code: out.answer.code };
  }
  if ('accepted' in out) return inProcess;
  if (out.unavailable === 'failed') recordFailure(sock);
  if (mode === 'on')
    return fail(
      parsed.globals.json,
      new ZkError('no_server', `no server answered for ${root}: ${out.reason} (start one with: zk-memory serve --root ${root})`),
    );
  // A server of another build started in the background makes way for one of this build; one run by `serve` stays.
  if (out.unavailable === 'another build' && !(await makeWay(sock, build))) return inProcess;
  // Started once the call is answered: a server booting beside it would slow the very call it is for.
  if (out.unavailable !== 'failed' || !backingOff(sock)) return { ...inProcess, after: () => startServer(root, env) };
  return inProcess;
}

/**
 * An answer that is the server's own failure, not the corpus's: it ran out of files or memory
 * (connections held open, a leak). The command answers in-process instead: a server never makes a
 * command worse.
 */
function outOfResources(answer: { code: number; stdout: string; stderr: string }): boolean {
  return answer.code === EXIT.busy && /\b(EMFILE|ENFILE|ENOMEM)\b|too many open files/i.test(`${answer.stderr}\n${answer.stdout}`);
}

/** Say why a command could not be answered, the way every command fails (docs/errors.md); `server`: whether a server took it. */
function fail(json: boolean, err: unknown, server = false): Forwarded {
  const e = asZkError(err);
  if (json) process.stdout.write(`${JSON.stringify({ ...errorJson(e), server })}\n`);
  else process.stderr.write(`error: ${e.message}\n`);
  return { code: e.exitCode };
}

/**
 * `zk-memory mcp` as a bridge: stdin and stdout joined to an MCP session on the corpus's server
 * (src/server/bridge.ts), started in the background when none runs. When no server could be had in
 * time, `none` says what to do: serve the session in-process, or fail.
 */
async function bridge(sock: string, root: string, request: CallRequest, env: NodeJS.ProcessEnv, none: (why: string) => Forwarded): Promise<Forwarded> {
  const first = await connectSession(sock, root, request, env);
  if (typeof first === 'string') return none(first);
  return { code: await bridgeSession(first, () => connectSession(sock, root, request, env, { patient: true })) };
}
