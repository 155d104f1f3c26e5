import fs from 'node:fs';
import type { Settings } from '../settings.js';
import { pidAlive } from '../api/vocabulary.js';
import { answers, pidFile } from './claim.js';
import { ask, serverState } from './client.js';
import { buildId } from './protocol.js';
import type { ServerStatus } from '../api/results.js';
import { socketFolder, socketPath } from './socket-path.js';

/** The state of the server of `root`, as `serve --status` and `status` report it. */
export async function serverStatus(root: string, settings: Settings): Promise<ServerStatus> {
  let sock: string;
  try {
    sock = socketPath(socketFolder(settings), root);
  } catch (err) {
    return { running: false, socket: null, reason: (err as Error).message };
  }
  return (await serverState(sock, buildId())) ?? { running: false, socket: sock };
}

/**
 * Stop the server of `root`: asked first; one that does not answer is sent SIGTERM, then SIGKILL,
 * by the pid it recorded beside its socket. The pid it stopped, or undefined when none ran.
 */
export async function stopServer(root: string, settings: Settings): Promise<number | undefined> {
  const sock = socketPath(socketFolder(settings), root);
  const recorded = recordedPid(sock);
  const out = await ask(sock, { kind: 'stop', build: buildId() });
  const pid = 'accepted' in out ? out.state?.pid : recorded;
  if (pid === undefined) return undefined;
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    if (await gone(sock, pid, 2000)) return pid;
    if (pid !== recorded || !servesHere(pid)) continue; // only a server's own recorded pid is signalled
    try {
      process.kill(pid, signal);
    } catch {
      return pid; // gone already
    }
  }
  await gone(sock, pid, 2000);
  return pid;
}

function recordedPid(sock: string): number | undefined {
  try {
    const pid = (JSON.parse(fs.readFileSync(pidFile(sock), 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` is a zk-memory server (its command line names `serve`), not a process that took a dead server's pid. */
function servesHere(pid: number): boolean {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.some((a) => a.endsWith('zk-memory.js') || a.endsWith('zk-memory')) && args.includes('serve');
  } catch {
    return false;
  }
}

/** Whether the server has gone (its process ended, or its socket no longer answers) within `ms`. */
async function gone(sock: string, pid: number, ms: number): Promise<boolean> {
  for (const until = performance.now() + ms; performance.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    if (!pidAlive(pid) || !(await answers(sock, 200))) return true;
  }
  return false;
}
