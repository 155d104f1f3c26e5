import fs from 'node:fs';
import type net from 'node:net';
import { current, newCall, withContext, type RunContext } from '../context.js';
import type { HttpOptions, RunningHttp } from './http.js';
import type { ResidentState } from '../ports.js';
import { ZkError } from '../errors.js';
import { indexLocation } from '../search/location.js';
import { residentState } from '../compose.js';
import { ResidentIndex } from '../search/resident-index.js';
import { backgroundEmbedding } from '../search/background-embed.js';
import type { CommandLine } from '../command-line/command-line.js';
import { canonicalRoot, ensureSocketFolder, socketFolder, socketPath } from './socket-path.js';
import { buildId, send, type CallRequest, type Request, type ServerState } from './protocol.js';
import { claimSocket, pidFile, releaseSocket, type SocketClaim } from './claim.js';
import { Connections } from './connections.js';
import { Activity } from './activity.js';
import { Compaction } from './compaction.js';
import { Calls } from './calls.js';
import { ViewerHost } from './viewer-host.js';

export { FIRST_LINE_MS, MAX_CONNECTIONS, MAX_WAITING_CONNECTIONS } from './connections.js';

/** How often the server looks whether its corpus folder is still there (docs/server.md: it ends within 30 s). */
const ROOT_CHECK_MS = 5000;

export interface ServeOptions {
  /** Exit after this long without a request or session (ms); undefined: stay. */
  idleMs?: number;
  /** Runs a command line for a call (src/commands/serve.ts hands it src/cli.ts `main`). */
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
 * (src/command-line/served.ts `servedCommand`), each in a context of its own built from the client's
 * per-call settings and working directory, all sharing one resident state and one watcher of the root;
 * and MCP sessions for stdio bridges. A second server of the same corpus finds the socket taken and
 * says so (exit 4).
 */
export async function serve(root: string, opts: ServeOptions): Promise<RunningServer> {
  const server = new ResidentServer(root, opts);
  await server.start();
  return { done: server.done, close: (reason) => server.close(reason), resident: server.resident };
}

/** One corpus's resident server: its socket, resident state, calls, viewer and lifecycle. */
class ResidentServer {
  readonly done: Promise<string>;
  private finish!: (reason: string) => void;
  /** The server's own context (its note grep among the rest), for its own calls and the viewer's pages. */
  private readonly own: RunContext;
  private readonly sock: string;
  private readonly real: string;
  private readonly build: string;
  private readonly since = new Date().toISOString();
  /** What its calls share between them: the watcher, the domain's kept notes, the search index's state. */
  readonly resident: ResidentState & { close(): void };
  private readonly embedding: ReturnType<typeof backgroundEmbedding>;
  private readonly activity = new Activity();
  private readonly connections: Connections;
  private readonly calls: Calls;
  private readonly compaction: Compaction;
  private readonly viewer: ViewerHost;
  /** MCP over HTTP, once it listens (with `opts.http`); a status asked for before then has none. */
  private web: RunningHttp | undefined;
  private claim: SocketClaim | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped: string | undefined;

  constructor(
    private readonly root: string,
    private readonly opts: ServeOptions,
  ) {
    this.done = new Promise<string>((resolve) => (this.finish = resolve));
    // Kept for the viewer too: it starts later, from a connection's event, where current() had no grep and its pages read every note.
    this.own = current();
    const { settings } = this.own;
    const folder = socketFolder(settings);
    ensureSocketFolder(folder);
    this.sock = socketPath(folder, root);
    this.real = canonicalRoot(root);
    // A fault for tests: a server that passes for another build, which clients must not take answers from.
    this.build = settings.fault() === 'server-other-build' ? `${buildId()}-other` : buildId();
    // On a network file system no watcher sees other hosts' writes: every search checks every note
    // first. What whole-corpus calls need of every note (for `list` and `status`; every note's links,
    // for `read`'s backlinks and `tend check`) is built in the server's own context, in slices between
    // calls, once a call first asks for it (src/corpus/note/stat-cache.ts `keptOrWarming`).
    this.resident = residentState(root, indexLocation(root).fileSystem === null, {
      networkRescanMs: 0,
      warmUp: (job) => void withContext(this.ownCall(), job).catch(() => undefined),
    });
    // New and changed notes embedded between calls by the built-in embedder (src/search/background-embed.ts).
    this.embedding = backgroundEmbedding(root, { inCall: (job) => withContext(this.ownCall(), job) });
    this.connections = new Connections(
      (socket, req) => this.onRequest(socket, req),
      () => this.activity.touch(),
    );
    this.calls = new Calls({ root, real: this.real, own: this.own, resident: this.resident, run: opts.run });
    this.compaction = new Compaction(
      root,
      () => this.resident.part(ResidentIndex)?.indexQuietMs() ?? 0,
      () => this.ownCall(),
    );
    this.viewer = new ViewerHost(
      root,
      () => this.ownCall(),
      () => this.state(),
    );
  }

  /** A call of the server's own (a warm-up, a compaction, the viewer's pages), with the resident state. */
  private ownCall(): RunContext {
    return newCall({ ...this.own, resident: this.resident });
  }

  private state(): ServerState {
    const { web, viewer } = this;
    return {
      running: true,
      pid: process.pid,
      since: this.since,
      rss: Math.round(process.memoryUsage.rss() / 1048576),
      socket: this.sock,
      root: this.real,
      build: this.build,
      background: this.opts.idleMs !== undefined,
      ...(web ? { http: web.url } : {}),
      ...(viewer.url ? { viewer: viewer.url } : {}),
    };
  }

  /** Take the socket (or say another server has it), serve HTTP when asked, and watch the root. */
  async start(): Promise<void> {
    const claim = await claimSocket(this.connections.server, this.sock);
    if (!claim) {
      this.connections.close();
      this.resident.close();
      throw new ZkError('busy', `a server already serves ${this.real} (socket ${this.sock})`);
    }
    this.claim = claim;
    try {
      if (this.opts.http) await this.startHttp(this.opts.http);
    } catch (err) {
      this.connections.close();
      releaseSocket(this.sock, claim);
      this.resident.close();
      throw err;
    }
    fs.writeFileSync(pidFile(this.sock), `${JSON.stringify({ pid: process.pid, since: this.since, root: this.real })}\n`, { mode: 0o600 });
    const rootId = identity(this.root);
    this.timer = setInterval(() => this.check(rootId, claim), Math.min(ROOT_CHECK_MS, this.opts.idleMs ?? ROOT_CHECK_MS));
    this.timer.unref();
    this.opts.onReady?.(this.state());
  }

  /** MCP over HTTP (loaded only then: a server that serves none never loads the MCP SDK's HTTP side). */
  private async startHttp(http: HttpOptions): Promise<void> {
    const [{ listenHttp }, { sessionContext }, { listTokens }] = await Promise.all([
      import('./http.js'),
      import('../mcp/server.js'),
      import('../api/tokens.js'),
    ]);
    // Tokens an older version kept in the corpus move to the store (when made on this host) before a client needs them.
    await listTokens(this.root);
    this.web = await listenHttp(this.root, http, sessionContext(current(), this.resident));
  }

  /** Every few seconds: end when the corpus or the socket is gone or the server idle; compact the index when quiet. */
  private check(rootId: string | undefined, claim: SocketClaim): void {
    const id = identity(this.root);
    if (id === undefined || id !== rootId || !fs.existsSync(`${this.root}/.zk`)) return this.close('the corpus folder is gone');
    if (!claim.stillOurs()) return this.close('the socket was taken over');
    if (this.viewer.watching()) this.activity.touch();
    if (this.opts.idleMs !== undefined && this.activity.idle(this.opts.idleMs, this.connections.size)) return this.close('idle');
    this.compaction.tick(this.activity.quiet());
  }

  /** A connection's first line: answered at once (status, stop, view) or accepted as a call or session. */
  private onRequest(socket: net.Socket, req: Request): void {
    this.activity.touch();
    const reply = (message: Parameters<typeof send>[1]) => {
      send(socket, message);
      socket.end();
    };
    if ((req.kind === 'call' || req.kind === 'mcp' || req.kind === 'view') && req.build !== this.build)
      return reply({ refused: 'another build', build: this.build });
    if (req.kind === 'status') return reply({ accepted: true, state: this.state() });
    if (req.kind === 'stop') {
      reply({ accepted: true, state: this.state() });
      return this.close('asked to stop');
    }
    if (req.kind === 'view') {
      this.viewer.start().then(
        (v) => reply({ accepted: true, state: this.state(), launch: v.launchUrl() }),
        (err: unknown) => reply({ refused: `the viewer could not start: ${err instanceof Error ? err.message : String(err)}` }),
      );
      return;
    }
    if (req.kind === 'call' || req.kind === 'mcp') return this.accept(socket, req);
    socket.destroy();
  }

  /** A call or MCP session: refused with the reason, or accepted and served. */
  private accept(socket: net.Socket, req: CallRequest): void {
    const refusal = this.calls.refused(req);
    if (refusal) {
      send(socket, { refused: refusal });
      socket.end();
      return;
    }
    send(socket, { accepted: true, pid: process.pid });
    // A session counts as each of its calls (an agent keeps one open for hours): the index is
    // compacted between them, as between command lines.
    const begin = () => this.activity.begin();
    const end = req.kind === 'call' ? begin() : () => this.activity.touch();
    const served = req.kind === 'call' ? this.calls.answer(socket, req) : this.calls.session(socket, req, begin);
    void served.finally(() => {
      this.embedding.poke();
      end();
    });
  }

  close(reason = 'closed'): void {
    if (this.stopped) return;
    this.stopped = reason;
    clearInterval(this.timer);
    this.embedding.close();
    this.connections.close();
    if (this.claim) releaseSocket(this.sock, this.claim);
    // HTTP calls under way finish first (for a while): what they were acknowledging is then on disk.
    void Promise.all([this.web?.close(), this.viewer.close()]).finally(() => {
      this.resident.close();
      this.finish(reason);
    });
  }
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
