import { execFile, spawn } from 'node:child_process';

// The other programs this one starts (git is run by src/adapters/git.ts, ripgrep by
// src/adapters/ripgrep.ts): the only place besides those where node:child_process is used.

/**
 * Start `command` detached from this process, its output ignored: it outlives the call that
 * started it and never holds this process open. `running` says whether it is still alive (false
 * once it has ended or could not be started). Throws when it cannot even be spawned.
 */
export function startDetached(command: string, args: string[], env: NodeJS.ProcessEnv): { running(): boolean } {
  const child = spawn(command, args, { detached: true, stdio: 'ignore', env });
  let ended = false;
  child.on('error', () => (ended = true));
  child.on('exit', () => (ended = true));
  child.unref();
  return { running: () => !ended };
}

/** Run `command` to its end: resolves when it succeeds, else rejects with its last line of stderr (or why it failed). */
export function runToEnd(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    execFile(command, args, { env }, (err, _out, stderr) => {
      if (err) reject(new Error(String(stderr).trim().split('\n').pop() || err.message));
      else resolve();
    });
  });
}
