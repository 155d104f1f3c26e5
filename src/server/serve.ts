import fs from 'node:fs';
import net from 'node:net';
import { current, newCall, withContext, type Io } from '../context.js';
import type { HttpOptions, RunningHttp } from './http.js';
import type { Viewer } from '../viewer/web.js';
import type { ResidentState } from '../ports.js';
import { ZkError } from '../errors.js';
import { indexLocation } from '../search/location.js';
import { residentState } from '../compose.js';
import { ResidentIndex } from '../search/resident-index.js';
import { backgroundEmbedding } from '../search/background-embed.js';
import { canonicalRoot, ensureSocketFolder, socketFolder, socketPath } from './socket-path.js';
import { buildId, HEARTBEAT_MS, MAX_REQUEST_BYTES, readLines, send, servedCommand, type CallRequest, type Request, type ServerState } from './protocol.js';
import { claimSocket, pidFile, releaseSocket } from './claim.js';
import type { CommandLine } from '../cli/context.js';
import { extractGlobals } from '../cli/globals.js';
import { envForCall } from '../call-settings.js';
import { Settings, type Env } from '../settings.js';
import { resolveRoot } from '../api/root.js';

/** How often the server looks whether its corpus folder is still there (docs/server.md: it ends within 30 s). */
const ROOT_CHECK_MS = 5000;
/** How long the server must not have written the search index before it compacts it (see `tidyIndex`). */
const TIDY_QUIET_MS = 5000;
/** How long a client may take to send its first line once connected: a half line does not hold the server. */
export const FIRST_LINE_MS = 5000;
/** Connections that have not said what they want yet, at most; more are closed at once. */
export const MAX_WAITING_CONNECTIONS = 32;
/** Connections at once, at most (calls under way and MCP sessions among them). */
export const MAX_CONNECTIONS = 256;

export interface ServeOptions {
  /** Exit after this long without a request or session (ms); undefined: stay. */
  idleMs?: number;
  /** Runs a command line for a call (src/cli.ts `main`), given the warm index and the connection for MCP. */
  run: CommandLine;
  /** Said once the socket is listening (and the HTTP port, with `http`). */
  onReady?: (state: ServerState) => void;
  /** Serve MCP over HTTP too (docs/http.md). */
  http?: HttpOptions;
}

export interface RunningServer {
  /** Resolves when the server has stopped (asked to, idle, its corpus gone, or `close`). */
  done: Promise<string>;
  close(reason?: string): void;
  /** Its resident state: what MCP sessions of its corpus share (served over HTTP by another server, docs/http.md#corpora-by-name). */
  resident: ResidentState;
}

/**
 * Serve the corpus at `root` on its socket until stopped: the command lines the server answers
 * (src/server/protocol.ts `servedCommand`), each in a context of its own built from the client's
 * environment and working directory, all sharing one warm index and one watcher of the root; and
 * MCP sessions for stdio bridges. A second server of the same corpus finds the socket taken and
 * says so (exit 4).
 */
export async function serve(root: string, opts: ServeOptions): Promise<RunningServer> {
  // The server's own context (its note grep among the rest), kept for the viewer: it starts later,
  // from a connection's event, where current() had no grep and its pages read every note.
  const own = current();
  const { settings } = own;
  const folder = socketFolder(settings);
  ensureSocketFolder(folder);
  const sock = socketPath(folder, root);
  const real = canonicalRoot(root);
  // A fault for tests: a server that passes for another build, which clients must not take answers from.
  const build = settings.fault() === 'server-other-build' ? `${buildId()}-other` : buildId();
  const since = new Date().toISOString();
  const local = indexLocation(root).fileSystem === null;
  // On a network file system no watcher sees other hosts' writes: every search checks every note
  // first. What whole-corpus calls need of every note (for `list` and `status`; every note's links,
  // for `read`'s backlinks and `tend check`) is built in the server's own context, in slices between
  // calls, once a call first asks for it (src/corpus/note/stat-cache.ts `keptOrWarming`).
  const warm = residentState(root, local, {
    networkRescanMs: 0,
    warmUp: (job) => void withContext(ownCall(), job).catch(() => undefined),
  });
  /** A call of the server's own (a warm-up, a compaction, the viewer's pages), with the warm index. */
  const ownCall = () => newCall({ ...own, resident: warm });
  // New and changed notes embedded between calls by the built-in embedder (src/search/background-embed.ts).
  const embedding = backgroundEmbedding(root, { inCall: (job) => withContext(ownCall(), job) });
  const sessions = new Set<net.Socket>();
  let busy = 0;
  // Idle time is measured on the monotonic clock: a system clock set back an hour must not keep a server an hour longer.
  let lastActive = performance.now();
  let stopped: string | undefined;
  /** MCP over HTTP, once it listens (with `opts.http`); a status asked for before then has none. */
  let web: RunningHttp | undefined;
  /** The viewer, started by the first `view` request (docs/viewer.md). */
  let viewer: Promise<Viewer> | undefined;
  let openViewer: Viewer | undefined;
  /** Whether a page of the viewer is open (following the corpus live): the server is not idle then. */
  const viewerWatching = () => (openViewer?.watching() ?? 0) > 0;
  let finish!: (reason: string) => void;
  const done = new Promise<string>((resolve) => (finish = resolve));

  const state = (): ServerState => ({ running: true, pid: process.pid, since, rss: Math.round(process.memoryUsage.rss() / 1048576), socket: sock, root: real, build, background: opts.idleMs !== undefined, ...(web ? { http: web.url } : {}), ...(openViewer ? { viewer: openViewer.url } : {}) });

  /** Connections that have not sent their first line yet. */
  let waiting = 0;
  const server = net.createServer((socket) => {
    if (waiting >= MAX_WAITING_CONNECTIONS) {
      socket.destroy();
      return;
    }
    sessions.add(socket);
    waiting++;
    let heard = false;
    const spoke = () => {
      if (heard) return;
      heard = true;
      waiting--;
      clearTimeout(firstLine);
    };
    // A timer that fires after the event loop was held (a long check) first lets the data that
    // arrived meanwhile be read: only a client that really sent no whole line is cut off.
    const firstLine = setTimeout(() => setImmediate(() => heard || socket.destroy()), FIRST_LINE_MS);
    socket.on('close', () => {
      spoke();
      sessions.delete(socket);
      lastActive = performance.now();
    });
    socket.on('error', () => socket.destroy());
    readLines(socket, MAX_REQUEST_BYTES, (line) => {
      spoke();
      let req: Request;
      try {
        req = JSON.parse(line) as Request;
      } catch {
        socket.destroy();
        return false;
      }
      if (!req || typeof req !== 'object') {
        socket.destroy();
        return false;
      }
      lastActive = performance.now();
      if ((req.kind === 'call' || req.kind === 'mcp' || req.kind === 'view') && req.build !== build) {
        send(socket, { refused: 'another build', build });
        socket.end();
        return false;
      }
      if (req.kind === 'status') {
        send(socket, { accepted: true, state: state() });
        socket.end();
      } else if (req.kind === 'view') {
        startViewer().then(
          (v) => {
            send(socket, { accepted: true, state: state(), launch: v.launchUrl() });
            socket.end();
          },
          (err: unknown) => {
            send(socket, { refused: `the viewer could not start: ${err instanceof Error ? err.message : String(err)}` });
            socket.end();
          },
        );
      } else if (req.kind === 'stop') {
        send(socket, { accepted: true, state: state() });
        socket.end();
        close('asked to stop');
      } else if (req.kind === 'call' || req.kind === 'mcp') {
        const refusal = refused(req);
        if (refusal) {
          send(socket, { refused: refusal });
          socket.end();
          return false;
        }
        send(socket, { accepted: true, pid: process.pid });
        busy++;
        const finished = () => {
          embedding.poke();
          busy--;
          lastActive = performance.now();
        };
        if (req.kind === 'call') void answer(socket, req).finally(finished);
        else void session(socket, req).finally(finished);
      } else socket.destroy();
      return false;
    });
  });
  server.maxConnections = MAX_CONNECTIONS;

  /** The server's own environment: every call's process settings come from it. */
  const processEnv = own.settings.environment();
  /** The environment of a call: the server's, with the client's per-call settings (src/call-settings.ts). */
  const callEnv = (req: CallRequest): Env => envForCall(processEnv, req.settings);

  /** Why a call or session is not one this server answers, or undefined when it is. */
  function refused(req: CallRequest): string | undefined {
    if (!Array.isArray(req.argv) || !req.argv.every((a) => typeof a === 'string') || typeof req.cwd !== 'string') return 'not a request of this protocol';
    const command = servedRequest(req.argv);
    if (!command || command !== req.command || (command === 'mcp') !== (req.kind === 'mcp')) return 'not a command this server answers';
    // Its freshness, its index and its watcher are this corpus's: a call for another is not its to answer.
    const corpus = callCorpus(req.argv, callEnv(req), req.cwd);
    if (corpus !== real) return `another corpus: this server serves ${real}, not ${corpus ?? 'a corpus the call names'}`;
    return undefined;
  }

  /** Run one command line and send its output, saying it is alive meanwhile. */
  async function answer(socket: net.Socket, req: CallRequest): Promise<void> {
    let stdout = '';
    let stderr = '';
    const io: Io = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stdin: () => req.stdin, cwd: () => req.cwd };
    const alive = setInterval(() => send(socket, { alive: true }), HEARTBEAT_MS);
    try {
      // Every change made before the request reaches the watcher before the call looks (docs/server.md).
      await warm.sync();
      const code = await opts.run(req.argv, io, callEnv(req), { resident: warm, served: true });
      if (!socket.destroyed) {
        send(socket, { done: true, code, stdout, stderr });
        socket.end();
      }
    } catch {
      socket.destroy(); // the client answers in-process
    } finally {
      clearInterval(alive);
    }
  }

  /** Serve one MCP session on the connection until either side closes it. */
  async function session(socket: net.Socket, req: CallRequest): Promise<void> {
    // What a tool call would print goes nowhere: the connection carries MCP only.
    const io: Io = { stdout: () => undefined, stderr: () => undefined, stdin: () => undefined, cwd: () => req.cwd };
    try {
      await opts.run(req.argv, io, callEnv(req), { resident: warm, served: true, streams: { input: socket, output: socket } });
    } finally {
      socket.end();
    }
  }

  /** The viewer, started once; its pages are read in calls of the server's own context, with the warm index. */
  function startViewer(): Promise<Viewer> {
    viewer ??= import('../viewer/web.js').then(async ({ listenViewer }) => {
      const v = await listenViewer(root, ownCall(), state);
      openViewer = v;
      return v;
    });
    viewer.catch(() => (viewer = undefined));
    return viewer;
  }

  function close(reason = 'closed'): void {
    if (stopped) return;
    stopped = reason;
    clearInterval(timer);
    embedding.close();
    server.close();
    for (const s of sessions) s.destroy();
    releaseSocket(sock, claim);
    // HTTP calls under way finish first (for a while): what they were acknowledging is then on disk.
    const viewing = viewer?.then((v) => v.close()).catch(() => undefined);
    void Promise.all([web?.close(), viewing]).finally(() => {
      warm.close();
      finish(reason);
    });
  }

  const claim = await claimSocket(server, sock);
  if (!claim) {
    server.close();
    warm.close();
    throw new ZkError('busy', `a server already serves ${real} (socket ${sock})`);
  }
  try {
    if (opts.http) {
      // Loaded only for HTTP: a server that serves none never loads the MCP SDK's HTTP side.
      const [{ listenHttp }, { sessionContext }, { listTokens }] = await Promise.all([import('./http.js'), import('../mcp/server.js'), import('../api/tokens.js')]);
      // Tokens an older version kept in the corpus move to the store (when made on this host) before a client needs them.
      await listTokens(root);
      web = await listenHttp(root, opts.http, sessionContext(current(), warm));
    }
  } catch (err) {
    server.close();
    releaseSocket(sock, claim);
    warm.close();
    throw err;
  }
  fs.writeFileSync(pidFile(sock), `${JSON.stringify({ pid: process.pid, since, root: real })}\n`, { mode: 0o600 });
  const rootId = identity(root);
  // Refreshes leave the search index in small pieces that slow every query: it is compacted once
  // writes have paused for a while, between calls, rather than by the refresh that reaches the
  // bound. Searches that need no refresh go on meanwhile (a server searched without a pause would
  // otherwise never compact); a refresh waits for it.
  let tidying = false;
  const timer = setInterval(() => {
    const id = identity(root);
    if (id === undefined || id !== rootId || !fs.existsSync(`${root}/.zk`)) return close('the corpus folder is gone');
    if (!claim.stillOurs()) return close('the socket was taken over');
    if (viewerWatching()) lastActive = performance.now();
    if (opts.idleMs !== undefined && busy === 0 && sessions.size === 0 && performance.now() - lastActive >= opts.idleMs) return close('idle');
    if (!tidying && busy === 0 && (warm.part(ResidentIndex)?.indexQuietMs() ?? 0) >= TIDY_QUIET_MS) {
      tidying = true;
      void withContext(ownCall(), async () => (await import('../search/fts-table.js')).tidyIndex(root))
        .catch(() => false)
        .finally(() => (tidying = false));
    }
  }, Math.min(ROOT_CHECK_MS, opts.idleMs ?? ROOT_CHECK_MS));
  timer.unref();
  opts.onReady?.(state());
  return { done, close, resident: warm };
}

/** Which folder a path names now (device and inode), or undefined when there is none. */
function identity(dir: string): string | undefined {
  try {
    const st = fs.statSync(dir);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/** The real path of the corpus a call names (its --root or --corpus, else ZK_MEMORY_ROOT, else the folder its working directory is in), as the command would find it. */
function callCorpus(argv: string[], env: Env, cwd: string): string | undefined {
  try {
    const { root, corpora } = extractGlobals(argv).globals;
    const io = { stdout: () => undefined, stderr: () => undefined, stdin: () => undefined, cwd: () => cwd };
    return withContext({ settings: new Settings(env), io }, () => canonicalRoot(resolveRoot(root, { corpora })));
  } catch {
    return undefined;
  }
}

/** The command a request's command line names, when this server answers it. */
function servedRequest(argv: string[]): string | undefined {
  try {
    return servedCommand(extractGlobals(argv).rest);
  } catch {
    return undefined; // a command line in error: the client answers it in-process, with its message
  }
}
