import fs from 'node:fs';
import { now } from '../context.js';
import { openSidecarForAppend, writeAll } from '../corpus/files/files.js';
import { sidecar } from '../corpus/files/paths.js';
import { redact } from './redact.js';

// `.zk/hooks.log`: one line for each hook that could not do its work (bad input, a lock held, a
// deadline passed), since a hook answers its host empty and says nothing on the agent's screen.

/** The log is started afresh past this size (the previous one kept as hooks.log.1). */
const MAX_LOG_BYTES = 1 << 20;

/** One line in `.zk/hooks.log` (redacted, never through a symlink); a log that cannot be written is let go. */
export function logHook(root: string, fields: Record<string, unknown>): void {
  try {
    const file = sidecar(root).hookLog;
    if (!fs.lstatSync(sidecar(root).zk, { throwIfNoEntry: false })?.isDirectory()) return;
    if ((fs.lstatSync(file, { throwIfNoEntry: false })?.size ?? 0) > MAX_LOG_BYTES) fs.renameSync(file, `${file}.1`);
    const line = redact(JSON.stringify({ at: new Date(now()).toISOString(), ...fields })).text;
    const fd = openSidecarForAppend(file);
    try {
      writeAll(fd, Buffer.from(`${line}\n`, 'utf8'));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // a full disk, a read-only corpus: the hook still answers
  }
}

/**
 * Log a hook that a process-wide guard had to answer (its deadline passed, or it crashed), from
 * what the process was given: `--root`, else ZK_MEMORY_ROOT, else the working folder's corpus.
 */
export async function logHookProcess(argv: string[], env: Record<string, string | undefined>, cwd: string, fields: Record<string, unknown>): Promise<void> {
  const { discoverRoot } = await import('../corpus/files/root.js');
  const path = await import('node:path');
  const at = argv.findIndex((a) => a === '--root' || a.startsWith('--root='));
  const named = at < 0 ? env.ZK_MEMORY_ROOT?.trim() || undefined : argv[at].startsWith('--root=') ? argv[at].slice(7) : argv[at + 1];
  const root = named ? path.resolve(cwd, named) : discoverRoot(cwd);
  if (root) logHook(root, { host: argv[argv.indexOf('hook') + 1] ?? null, ...fields });
}
