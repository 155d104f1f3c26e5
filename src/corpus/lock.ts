import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { settings } from '../context.js';
import { ZkError } from '../errors.js';
import { sidecar } from './paths.js';

/** How long to wait for the corpus lock before giving up (ZK_MEMORY_LOCK_TIMEOUT, seconds). */
export function lockTimeoutMs(): number {
  return settings().lockTimeoutMs();
}

/** After how long a lock left by a dead process is taken over (ZK_MEMORY_LOCK_STALE, seconds; min 2). */
export function lockStaleMs(): number {
  return settings().lockStaleMs();
}

import { ensureSidecar } from './sidecar.js';

export { ensureSidecar };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Run `fn` holding the corpus lock (`.zk/lock`). Waits with jittered retries up to the lock timeout,
 * then fails with exit 4; a lock whose holder died is taken over once it is stale.
 *
 * `lockPath` names another lock of the same kind (its holder record beside it, `<lockPath>.holder`),
 * for derived state that must not make writers wait on the corpus lock.
 */
export async function withCorpusLock<T>(root: string, fn: () => Promise<T> | T, lockPath?: string): Promise<T> {
  ensureSidecar(root);
  const paths = lockPath
    ? { zk: path.dirname(lockPath), lock: lockPath, lockHolder: `${lockPath}.holder` }
    : sidecar(root);
  if (lockPath) fs.mkdirSync(paths.zk, { recursive: true });
  const stale = lockStaleMs();
  const deadline = Date.now() + lockTimeoutMs();
  // Loaded here, not at start-up: most commands never lock.
  const lockfile = (await import('proper-lockfile')).default;
  let release: (() => Promise<void>) | undefined;
  for (let attempt = 0; !release; attempt++) {
    try {
      release = await lockfile.lock(paths.zk, {
        lockfilePath: paths.lock,
        realpath: false,
        stale,
        retries: 0,
        onCompromised: () => {
          // The lock was taken over while held (we stalled past the stale time); the append we make
          // is still a single O_APPEND write, so there is nothing to undo.
        },
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ELOCKED') throw err;
      if (Date.now() >= deadline) {
        const holder = readHolder(paths.lock, paths.lockHolder);
        const who = holder ? ` by ${holder.host} pid ${holder.pid}` : '';
        const what = lockPath ? `${path.basename(lockPath)} lock` : 'corpus busy: lock';
        throw new ZkError('busy', `${what} held${who}; gave up after ${Math.round(lockTimeoutMs() / 1000)} s`);
      }
      await sleep(Math.min(200, 5 + attempt * 5) * (0.5 + Math.random()));
    }
  }
  try {
    writeLockHolder(paths.lockHolder);
    return await fn();
  } finally {
    try {
      fs.rmSync(paths.lockHolder, { force: true });
    } catch {
      // informational file only
    }
    await release().catch(() => undefined);
  }
}

export interface Holder {
  host: string;
  pid: number;
  since: string;
}

function writeLockHolder(file: string): void {
  try {
    const h: Holder = { host: os.hostname(), pid: process.pid, since: new Date().toISOString() };
    fs.writeFileSync(file, JSON.stringify(h));
  } catch {
    // informational file only
  }
}

/** Who holds the corpus lock, when it is held and says so. */
export function readLockHolder(root: string): Holder | undefined {
  const p = sidecar(root);
  return readHolder(p.lock, p.lockHolder);
}

function readHolder(lock: string, holder: string): Holder | undefined {
  if (!fs.existsSync(lock)) return undefined;
  try {
    return JSON.parse(fs.readFileSync(holder, 'utf8')) as Holder;
  } catch {
    return undefined;
  }
}
