import type net from 'node:net';
import { newCall, withContext, type Io, type RunContext } from '../context.js';
import { envForCall } from '../call-settings.js';
import { Settings, type Env } from '../settings.js';
import { resolveRoot } from '../api/root.js';
import { extractGlobals } from '../command-line/globals.js';
import { servedCommand, servedWrite } from '../command-line/served.js';
import { mcpFlagOverrides } from '../command-line/setting-flags.js';
import type { CommandLine } from '../command-line/command-line.js';
import type { ResidentState } from '../ports.js';
import { serverStatus } from './status.js';
import { canonicalRoot } from './socket-path.js';
import { HEARTBEAT_MS, readLines, send, type CallRequest } from './protocol.js';
import { crashAt } from '../api/vocabulary.js';

/** What the calls of one server share: its corpus, its own context, its resident state, and the command line it answers with. */
export interface CallsOptions {
  root: string;
  /** The real path of the corpus served: a call for another is refused. */
  real: string;
  /** The server's own context: its ports, and its process settings (every call's come from them). */
  own: RunContext;
  resident: ResidentState;
  /** Runs the command line of a call (src/commands/serve.ts hands it src/cli.ts `main`). */
  run: CommandLine;
}

/**
 * The calls and MCP sessions a server answers, each in a context of its own: the server's process
 * settings with the client's per-call settings over them (src/call-settings.ts), the client's
 * working directory and piped input, and the shared resident state.
 */
export class Calls {
  constructor(private readonly o: CallsOptions) {}

  /** The environment of a call: the server's, with the client's per-call settings. */
  private env(req: CallRequest): Env {
    return envForCall(this.o.own.settings.environment(), req.settings);
  }

  /** Why a call or session is not one this server answers, or undefined when it is. */
  refused(req: CallRequest): string | undefined {
    if (!Array.isArray(req.argv) || !req.argv.every((a) => typeof a === 'string') || typeof req.cwd !== 'string') return 'not a request of this protocol';
    const parsed = parseArgv(req.argv);
    const command = parsed && servedCommand(parsed.rest);
    if (!parsed || !command || command !== req.command || (command === 'mcp') !== (req.kind === 'mcp')) return 'not a command this server answers';
    if (command === 'mcp' && !mcpFlagOverrides(parsed.rest.slice(1))) return 'not a command this server answers';
    // Its freshness, its index and its watcher are this corpus's: a call for another is not its to answer.
    const corpus = this.corpusOf(parsed.globals, req);
    if (corpus !== this.o.real) return `another corpus: this server serves ${this.o.real}, not ${corpus ?? 'a corpus the call names'}`;
    return undefined;
  }

  /**
   * Run one command line and send its output, saying it is alive meanwhile. A write runs only once
   * the client said `go`: a client that gave up before then writes in-process instead.
   */
  async answer(socket: net.Socket, req: CallRequest): Promise<void> {
    const write = servedWrite(req.command);
    if (write && !(await goAhead(socket))) {
      socket.destroy();
      return;
    }
    // Fault seams of the server's own settings, for tests: killed between taking a write and answering it.
    if (write) withContext(this.o.own, () => crashAt('server-write-taken'));
    let stdout = '';
    let stderr = '';
    const io: Io = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stdin: () => req.stdin, cwd: () => req.cwd };
    const alive = setInterval(() => send(socket, { alive: true }), HEARTBEAT_MS);
    try {
      // Every change made before the request reaches the watcher before the call looks (docs/server.md).
      await this.o.resident.caughtUp();
      const code = await this.o.run(req.argv, io, this.env(req), { resident: this.o.resident, served: true });
      if (write) withContext(this.o.own, () => crashAt('server-write-made'));
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

  /**
   * Serve one MCP session on the connection until either side closes it: the library's MCP
   * server, in a context with the session's flags over its settings (`refused` checked them).
   * `inCall` is told of each of its calls under way: an open session is no call.
   */
  async session(socket: net.Socket, req: CallRequest, inCall: () => () => void): Promise<void> {
    // What a tool call would print goes nowhere: the connection carries MCP only.
    const io: Io = { stdout: () => undefined, stderr: () => undefined, stdin: () => undefined, cwd: () => req.cwd };
    try {
      const overrides = mcpFlagOverrides(extractGlobals(req.argv).rest.slice(1)) ?? {};
      const ctx = newCall({ ...this.o.own, settings: new Settings(this.env(req)).with(overrides), io, resident: this.o.resident });
      const { serveMcp } = await import('../mcp/server.js');
      await withContext(ctx, () => serveMcp(this.o.root, ctx, serverStatus, { input: socket, output: socket, inCall }));
    } catch {
      // a session that could not start or broke off: the connection's end tells the client
    } finally {
      socket.end();
    }
  }

  /** The real path of the corpus a call names (its --root or --corpus, else ZK_MEMORY_ROOT, else the folder its working directory is in), as the command would find it. */
  private corpusOf({ root, corpora }: { root?: string; corpora?: string[] }, req: CallRequest): string | undefined {
    try {
      const io = { stdout: () => undefined, stderr: () => undefined, stdin: () => undefined, cwd: () => req.cwd };
      return withContext({ settings: new Settings(this.env(req)), io }, () => canonicalRoot(resolveRoot(root, { corpora })));
    } catch {
      return undefined;
    }
  }
}

/** Whether the client of an accepted write says `go` (true) or leaves without (false). */
function goAhead(socket: net.Socket): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed || socket.readableEnded) return resolve(false);
    const no = () => resolve(false);
    socket.once('close', no);
    socket.once('end', no);
    // Once the reader of the first line has let go of the connection (it pauses it as it leaves).
    setImmediate(() => {
      readLines(socket, 1024, (line) => {
        socket.off('close', no);
        socket.off('end', no);
        try {
          resolve((JSON.parse(line) as { go?: unknown }).go === true);
        } catch {
          resolve(false);
        }
        return false;
      });
      socket.resume();
    });
  });
}

/** A command line's global options and the rest, or undefined when it is in error (the client answers it in-process, with its message). */
function parseArgv(argv: string[]): ReturnType<typeof extractGlobals> | undefined {
  try {
    return extractGlobals(argv);
  } catch {
    return undefined;
  }
}
