import fs from 'node:fs';
import type net from 'node:net';
import { fileURLToPath } from 'node:url';
import { version } from '../version.js';
import type { ServerState } from '../api/results.js';

export type { ServerState };

// The resident server's protocol (docs/server.md): JSON, one message a line, over a Unix socket.
// The client's first line says what it wants; the server answers `accepted` at once (or `refused`
// with the reason), then, for a call, `alive` every HEARTBEAT_MS while it works and `done` with
// the call's output; for an MCP session, the connection carries MCP's own lines from then on.

/** A command line to answer (`call`) or an MCP session to serve (`mcp`), as the client would run it. */
export interface CallRequest {
  kind: 'call' | 'mcp';
  build: string;
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  stdin?: string;
}

export type Request = CallRequest | { kind: 'status' | 'stop'; build: string };


export type Reply =
  | { accepted: true; pid?: number; state?: ServerState }
  | { refused: string; build?: string }
  | { alive: true }
  | { done: true; code: number; stdout: string; stderr: string };

/** How often a server working on a call says it is alive: a client that hears nothing for longer gives up on it. */
export const HEARTBEAT_MS = 250;

/**
 * This build's identity: its version and when its compiled code was made. A server of another
 * build may read the corpus another way, so a client never takes its answers.
 */
export function buildId(): string {
  let stamp = '';
  try {
    stamp = String(Math.round(fs.statSync(fileURLToPath(import.meta.url)).mtimeMs));
  } catch {
    // a build without files of its own: its version alone names it
  }
  return `${version()}+${stamp}`;
}

/** The commands a server answers: those that only read (`tend check` of tend's subcommands). */
export function servedCommand(argv: string[]): string | undefined {
  const words = positionals(argv);
  const [first, second] = words;
  if (first === 'search' || first === 'read' || first === 'list' || first === 'status') return first;
  if (first === 'tend' && second === 'check') return 'tend check';
  if (first === 'mcp') return 'mcp';
  return undefined;
}

/** The words of a command line that are not options (`--root DIR` and `--json` skipped wherever they stand). */
function positionals(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length && out.length < 2; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '--root') i++;
    else if (a === '--json' || a.startsWith('--root=')) continue;
    else if (!a.startsWith('-')) out.push(a);
    else if (out.length === 0) return []; // an option before the command (--help, --version): not forwarded
  }
  return out;
}

/** The `--root` a command line gives, wherever it stands, as src/cli.ts reads it. */
export function rootArgument(argv: string[]): string | undefined {
  let root: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '--root') root = argv[++i];
    else if (a.startsWith('--root=')) root = a.slice('--root='.length);
  }
  return root;
}

export function send(socket: net.Socket, message: Request | Reply): void {
  socket.write(`${JSON.stringify(message)}\n`);
}

/**
 * Hand each line the socket receives to `onLine` until it returns `false` (the connection is
 * another protocol's from then on): the bytes after that line are put back into the socket.
 * A line over `maxBytes` ends the connection.
 */
export function readLines(socket: net.Socket, maxBytes: number, onLine: (line: string) => boolean | void): void {
  let chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(10, at);
      if (nl < 0) {
        chunks.push(chunk.subarray(at));
        size += chunk.length - at;
        if (size > maxBytes) socket.destroy(new Error(`message over ${maxBytes} bytes`));
        return;
      }
      const line = Buffer.concat([...chunks, chunk.subarray(at, nl)]).toString('utf8');
      chunks = [];
      size = 0;
      at = nl + 1;
      if (onLine(line) === false) {
        socket.off('data', onData);
        socket.pause();
        if (at < chunk.length) socket.unshift(chunk.subarray(at));
        return;
      }
    }
  };
  socket.on('data', onData);
}
