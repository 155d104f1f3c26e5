import fs from 'node:fs';
import type net from 'node:net';
import type { Readable } from 'node:stream';
import { version } from '../version.js';
import type { ServerState } from '../api/results.js';

export type { ServerState };

// The resident server's protocol (docs/server.md): JSON, one message a line, over a Unix socket.
// The client's first line says what it wants; the server answers `accepted` at once (or `refused`
// with the reason; for `view`, with a launch link of the viewer it starts), then, for a call, `alive` every HEARTBEAT_MS while it works and `done` with
// the call's output; for an MCP session, the connection carries MCP's own lines from then on.
// A write, once accepted, waits for the client's `go` line (`GoAhead`) before it runs.

/**
 * A command line to answer (`call`) or an MCP session to serve (`mcp`), as the client would run it:
 * its arguments, working directory and piped input, and its per-call settings (src/call-settings.ts),
 * never its whole environment: the server's process settings are its own.
 */
export interface CallRequest {
  kind: 'call' | 'mcp';
  build: string;
  /** The command `argv` names (`servedCommand`): the server answers only when it names the same. */
  command: string;
  argv: string[];
  settings: Record<string, string>;
  cwd: string;
  stdin?: string;
}

export type Request = CallRequest | { kind: 'status' | 'stop' | 'view'; build: string };

/**
 * A write's second line, sent by the client once the server accepted it: the server runs a write
 * only after it, so a client that gave up before (the server slow to accept) may write in-process
 * instead, and one that sent it never does (src/command-line/served.ts `servedWrite`).
 */
export interface GoAhead {
  go: true;
}

export type Reply =
  | { accepted: true; pid?: number; state?: ServerState; launch?: string }
  | { refused: string; build?: string }
  | { alive: true }
  | { done: true; code: number; stdout: string; stderr: string };

/**
 * The largest first line a server reads: room for a command line and a query piped to `search -`.
 * A client with a larger request answers it in-process; a server cuts off a client that sends
 * more, as soon as it has (src/server/serve.ts).
 */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/** How often a server working on a call says it is alive: a client that hears nothing for longer gives up on it. */
export const HEARTBEAT_MS = 250;

/**
 * This build's identity: its version and when its compiled code was made. A server of another
 * build may read the corpus another way, so a client never takes its answers. The compiled
 * protocol module dates the build: the command line's first step, bundled into a file beside it
 * (scripts/build-cli.mjs), names the same one.
 */
export function buildId(): string {
  for (const file of [new URL('./protocol.js', import.meta.url), new URL(import.meta.url)]) {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st) return `${version()}+${Math.round(st.mtimeMs)}`;
  }
  return `${version()}+`; // a build without files of its own: its version alone names it
}

export function send(socket: net.Socket, message: Request | GoAhead | Reply): void {
  socket.write(`${JSON.stringify(message)}\n`);
}

/**
 * Hand each line a stream (a connection, stdin) brings to `onLine` until it returns `false` (the
 * connection is another protocol's from then on): the bytes after that line are put back into
 * the stream. A line over `maxBytes` ends the stream.
 */
export function readLines(socket: Readable, maxBytes: number, onLine: (line: string) => boolean | void): void {
  let chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(10, at);
      if (nl < 0) {
        chunks.push(chunk.subarray(at));
        size += chunk.length - at;
        if (size > maxBytes) {
          // Let go of what was read at once: a connection that sent too much holds nothing more.
          chunks = [];
          size = 0;
          socket.off('data', onData);
          socket.destroy(new Error(`message over ${maxBytes} bytes`));
        }
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
