import fs from 'node:fs';
import os from 'node:os';
import { now, settings } from '../../context.js';
import { ZkError } from '../../errors.js';
import { createFileExclusive, replaceFile } from '../files/files.js';
import { withCorpusLock } from './lock.js';
import { sidecar } from '../files/paths.js';

/** The caretaker lease: who runs long maintenance, and until when (renewed while running). */
export interface Lease {
  host: string;
  pid: number;
  purpose: string;
  since: string;
  expires: string;
}

/** Lease length in ms (ZK_MEMORY_LEASE_SECONDS; default 600). */
function leaseMs(): number {
  return settings().leaseMs();
}

export function readLease(root: string): Lease | undefined {
  try {
    return JSON.parse(fs.readFileSync(sidecar(root).lease, 'utf8')) as Lease;
  } catch {
    return undefined;
  }
}

/** Whether a process of this host runs under `pid` (one of another user counts). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lease nobody holds any more: expired, unreadable, or left by a dead process on this host. */
function isDead(lease: Lease | undefined): boolean {
  if (!lease || typeof lease.expires !== 'string') return true;
  if (Date.parse(lease.expires) < now()) return true;
  return lease.host === os.hostname() && !pidAlive(lease.pid);
}

function render(purpose: string, since: string): string {
  const lease: Lease = {
    host: os.hostname(),
    pid: process.pid,
    purpose,
    since,
    expires: new Date(now() + leaseMs()).toISOString(),
  };
  return `${JSON.stringify(lease)}\n`;
}

function isOurs(lease: Lease | undefined): boolean {
  return Boolean(lease && lease.host === os.hostname() && lease.pid === process.pid);
}

/**
 * Run `fn` holding the caretaker lease. A second caretaker fails with exit 4 naming the holder;
 * a lease left by a dead or expired caretaker is taken over.
 */
export async function withCaretakerLease<T>(root: string, purpose: string, fn: () => Promise<T> | T): Promise<T> {
  const file = sidecar(root).lease;
  const since = new Date(now()).toISOString();
  const acquired = await withCorpusLock(root, (lock) => {
    if (createFileExclusive(root, file, render(purpose, since), lock)) return true;
    const current = readLease(root);
    if (!isDead(current)) return false;
    fs.rmSync(file, { force: true });
    return createFileExclusive(root, file, render(purpose, since), lock);
  });
  if (!acquired) {
    const h = readLease(root);
    const who = h ? `${h.host} pid ${h.pid}${h.purpose ? ` (${h.purpose})` : ''} until ${h.expires}` : 'another caretaker';
    throw new ZkError('lease_held', `caretaker lease held by ${who}`);
  }
  const renew = setInterval(
    () => {
      try {
        // Atomic, so another caretaker never reads a half-written lease and takes it for dead.
        if (isOurs(readLease(root))) replaceFile(root, file, render(purpose, since));
      } catch {
        // a missed renewal only shortens the lease
      }
    },
    Math.max(1000, leaseMs() / 3),
  );
  renew.unref();
  try {
    return await fn();
  } finally {
    clearInterval(renew);
    try {
      if (isOurs(readLease(root))) fs.rmSync(file, { force: true });
    } catch {
      // leave it to expire
    }
  }
}
