import type net from 'node:net';
import { ask } from './client.js';
import type { Readable } from 'node:stream';
import { readLines, type CallRequest } from './protocol.js';
import { askStarting } from './start.js';

/** JSON-RPC's code for an internal error: a request the server did not live to answer. */
const INTERNAL_ERROR = -32603;

/**
 * A session on the corpus's server, starting one when none runs, or the reason none could be had
 * (see askStarting: `patient` for a bridge whose server just went away).
 */
export async function connectSession(
  sock: string,
  root: string,
  request: CallRequest,
  env: NodeJS.ProcessEnv,
  o: { patient?: boolean } = {},
): Promise<net.Socket | string> {
  const out = await askStarting(sock, root, env, request.build, () => ask(sock, request, { keep: true }), o);
  if ('accepted' in out) return out.accepted;
  return 'unavailable' in out ? out.reason : 'the server answered out of turn';
}

/** The longest MCP line the bridge passes on (the server holds its own, smaller limit). */
const MAX_LINE_BYTES = 1 << 30;

/** Every line of a stream, to `onLine`. */
const lines = (stream: Readable, onLine: (line: string) => void) => readLines(stream, MAX_LINE_BYTES, (line) => void onLine(line));

type Message = { id?: string | number | null; method?: string };

function parse(line: string): Message | undefined {
  try {
    const m = JSON.parse(line) as unknown;
    return m && typeof m === 'object' && !Array.isArray(m) ? (m as Message) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Join the process's stdin and stdout to an MCP session on the server, line by line, until the
 * client closes stdin. When the server goes away mid-session (killed, stopped for another build),
 * the requests it had not answered get an error, a new session is opened (starting a server) and
 * the client's `initialize` and `initialized` are replayed into it, so the client goes on as if
 * nothing happened. Resolves to the exit code.
 */
export function bridgeSession(first: net.Socket, reconnect: () => Promise<net.Socket | string>): Promise<number> {
  return new Promise((resolve) => {
    let socket: net.Socket | undefined;
    let inputEnded = false;
    let initialize: string | undefined;
    let initialized: string | undefined;
    /** Requests sent and not yet answered, by id. */
    const pending = new Map<string, Message['id']>();
    /** Lines the client sent while no session was open. */
    let queued: string[] = [];

    const fail = (id: Message['id'], message: string) => {
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message } })}\n`);
    };
    const toServer = (line: string) => {
      if (socket) socket.write(`${line}\n`);
      else queued.push(line);
    };
    const attach = (s: net.Socket, replaying: boolean) => {
      socket = s;
      let swallow: string | undefined;
      if (replaying && initialize) {
        swallow = JSON.stringify(parse(initialize)?.id ?? null);
        s.write(`${initialize}\n`);
        if (initialized) s.write(`${initialized}\n`);
      }
      for (const line of queued) s.write(`${line}\n`);
      queued = [];
      s.on('error', () => undefined);
      lines(s, (line) => {
        const m = parse(line);
        const id = m && 'id' in m ? JSON.stringify(m.id) : undefined;
        if (id !== undefined && m?.method === undefined) {
          if (id === swallow) {
            swallow = undefined; // the replayed initialize's answer: the client has its own
            return;
          }
          pending.delete(id);
        }
        process.stdout.write(`${line}\n`);
      });
      s.resume();
      s.on('close', () => void lost(s));
    };
    const lost = async (s: net.Socket) => {
      if (s !== socket) return;
      socket = undefined;
      if (inputEnded) return resolve(0);
      for (const id of pending.values()) fail(id, 'the memory server stopped before answering: try again');
      pending.clear();
      const next = await reconnect();
      if (typeof next === 'string') {
        // Every request the client is waiting on gets an answer before the bridge goes.
        for (const line of queued) {
          const m = parse(line);
          if (m?.method !== undefined && m.id !== undefined && m.id !== null) fail(m.id, `no memory server could be had: ${next}`);
        }
        process.stderr.write(`error: the memory server went away and no other could be had: ${next}\n`);
        return resolve(1);
      }
      attach(next, true);
    };

    // The client went away (its end of stdout closed): the session ends with it.
    process.stdout.on('error', () => {
      inputEnded = true;
      socket?.destroy();
    });
    lines(process.stdin, (line) => {
      const m = parse(line);
      if (m?.method === 'initialize') initialize = line;
      else if (m?.method === 'notifications/initialized') initialized = line;
      if (m?.method !== undefined && m.id !== undefined && m.id !== null) pending.set(JSON.stringify(m.id), m.id);
      toServer(line);
    });
    process.stdin.on('end', () => {
      inputEnded = true;
      if (socket) socket.end();
      else resolve(0);
    });
    attach(first, false);
  });
}
