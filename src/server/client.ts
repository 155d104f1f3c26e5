import fs from 'node:fs';
import net from 'node:net';
import { HEARTBEAT_MS, readLines, send, type Reply, type Request, type ServerState } from './protocol.js';

/**
 * How long a client waits for a server to accept its request, and then for any word from it
 * while it works: a server that is hung (stopped, swapped out) costs a call at most their sum,
 * after which the call is answered in-process.
 */
export const ACCEPT_MS = 500;
export const SILENCE_MS = 4 * HEARTBEAT_MS;
/** The largest answer taken from a server (a `list` of a very large corpus fits). */
const MAX_ANSWER_BYTES = 1 << 30;

export type Outcome =
  | { answer: { code: number; stdout: string; stderr: string } }
  | { accepted: net.Socket; state?: ServerState; launch?: string }
  | { unavailable: 'absent' | 'failed' | 'another build'; reason: string }
  /** A write the server was told to make broke off before its answer: it may or may not have been made. */
  | { unknown: string };

/**
 * Send `req` to the server on `sock`. A call's outcome is its answer; an MCP session's (`keep`) is
 * the connection, once accepted, for the session's own lines. Anything else is `unavailable`:
 * `absent` when no server listens, `another build` when one of another build does, `failed` when
 * one broke off, refused, or fell silent. A `write` is told to go once accepted; from then on a
 * failure is `unknown`, never `unavailable`: the caller must not make the write itself.
 */
export function ask(sock: string, req: Request, o: { keep?: boolean; write?: boolean } = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    let accepted = false;
    /** Whether the server was told to make the write: it may have, whatever happens next. */
    let told = false;
    const socket = net.connect(sock);
    const finish = (out: Outcome) => {
      if (settled) return;
      if (told && 'unavailable' in out) out = { unknown: out.reason };
      settled = true;
      clearTimeout(silence);
      if (!('accepted' in out)) socket.destroy();
      resolve(out);
    };
    let silence = setTimeout(() => finish({ unavailable: 'failed', reason: 'the server did not accept the request in time' }), ACCEPT_MS);
    let pid: number | undefined;
    let ticks: number | undefined;
    // Silent, but working: a call busy with the CPU (a first check of 50,000 notes) holds the
    // server's event loop, and its heartbeats with it; a stopped or dead server does no work.
    const stillWorking = () => {
      const now = pid === undefined ? undefined : cpuTicks(pid);
      const working = now !== undefined && ticks !== undefined && now > ticks;
      ticks = now;
      return working;
    };
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(function quiet() {
        if (stillWorking()) silence = setTimeout(quiet, SILENCE_MS);
        else finish({ unavailable: 'failed', reason: 'the server fell silent' });
      }, SILENCE_MS);
    };
    socket.once('connect', () => send(socket, req));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const absent = !accepted && (err.code === 'ENOENT' || err.code === 'ECONNREFUSED');
      finish({ unavailable: absent ? 'absent' : 'failed', reason: absent ? 'no server runs' : `the connection failed: ${err.message}` });
    });
    socket.on('close', () => finish({ unavailable: 'failed', reason: 'the server closed the connection' }));
    readLines(socket, MAX_ANSWER_BYTES, (line) => {
      let reply: Reply;
      try {
        reply = JSON.parse(line) as Reply;
      } catch {
        finish({ unavailable: 'failed', reason: 'the server answered something else than its protocol' });
        return false;
      }
      if ('refused' in reply) {
        finish({ unavailable: reply.refused === 'another build' ? 'another build' : 'failed', reason: `the server refused: ${reply.refused}` });
        return false;
      }
      if ('accepted' in reply) {
        accepted = true;
        pid = reply.pid;
        ticks = pid === undefined ? undefined : cpuTicks(pid);
        if (o.keep || req.kind === 'status' || req.kind === 'stop' || req.kind === 'view') {
          finish({ accepted: socket, state: reply.state, ...(reply.launch ? { launch: reply.launch } : {}) });
          if (!o.keep) socket.destroy();
          return false;
        }
        if (o.write) {
          send(socket, { go: true });
          told = true;
        }
        heard();
        return true;
      }
      if ('done' in reply) {
        finish({ answer: { code: reply.code, stdout: reply.stdout, stderr: reply.stderr } });
        return false;
      }
      heard();
      return true;
    });
  });
}

/** The state of the server on `sock`, or undefined when none answers. */
export async function serverState(sock: string, build: string): Promise<ServerState | undefined> {
  if (!fs.existsSync(sock)) return undefined;
  const out = await ask(sock, { kind: 'status', build });
  return 'accepted' in out ? out.state : undefined;
}

/**
 * The CPU time process `pid` has used so far (clock ticks), or undefined when it is stopped, gone
 * or cannot be told (no /proc).
 */
function cpuTicks(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
    if (!fields || /^[TtZX]/.test(fields[0])) return undefined;
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}
