import fs from 'node:fs';
import type { RunResult } from './corpus.js';

/** The state letter of process `pid` (R, S, T, Z, …), or undefined when there is none. */
function processState(pid: number | string): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
  } catch {
    return undefined;
  }
}

/** Whether process `pid` has ended (a zombie nobody reaped yet counts as ended). */
export function processGone(pid: number): boolean {
  const state = processState(pid);
  return state === undefined || state === 'Z' || state === 'X';
}

/** The pids of the running zk-memory servers whose command line (`serve` and its arguments) `matches`. */
export function serverPids(matches: (args: string[]) => boolean): number[] {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      try {
        const args = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        return args.includes('serve') && matches(args) && !processGone(Number(p)) ? [Number(p)] : [];
      } catch {
        return [];
      }
    });
}

/** A running server as `serve --status --json` names it: its socket and its build. */
export interface RunningServer {
  socket: string;
  build: string;
}

/**
 * Ask `server` for the command line `argv` from this process, as the command line's client
 * (src/server/forward.ts) asks it, with the per-call settings of `env`, and read its answer as a
 * run's result. For tests about what a server answers; whether a process's call reaches the server
 * is for a process to show (zkProcess). Fails when the server does not answer.
 */
export async function askServer(server: RunningServer, argv: string[], o: { env?: Record<string, string | undefined>; cwd?: string } = {}): Promise<RunResult> {
  const { ask } = await import('../../src/server/client.js');
  const { callSettings } = await import('../../src/call-settings.js');
  const { extractGlobals } = await import('../../src/command-line/globals.js');
  const { servedCommand, servedWrite } = await import('../../src/command-line/served.js');
  const command = servedCommand(extractGlobals(argv).rest);
  if (!command || command === 'mcp') throw new Error(`no server answers ${argv.join(' ')}`);
  const settings = callSettings({ ...process.env, ZK_MEMORY_ROOT: '', ZK_MEMORY_SOURCE: '', ZK_MEMORY_BACKEND: '', ...o.env });
  const out = await ask(
    server.socket,
    { kind: 'call', build: server.build, command, argv, settings, cwd: o.cwd ?? process.cwd() },
    { write: servedWrite(command) },
  );
  if (!('answer' in out)) throw new Error(`the server did not answer ${argv.join(' ')}: ${JSON.stringify(out)}`);
  const { code, stdout, stderr } = out.answer;
  let json: any;
  if (argv.includes('--json')) json = JSON.parse(stdout);
  return { code, stdout: stdout.replace(/\n$/, ''), stderr: stderr.replace(/\n$/, ''), json };
}
