import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { settings, now } from '../../context.js';
import { ZkError } from '../../errors.js';
import { recoverAppends } from './append.js';
import { readFully, writeAll } from '../files/files.js';
import { sidecar } from '../files/paths.js';
import { ensureSidecar } from '../files/sidecar.js';
import type { HeldLock } from '../files/held-lock.js';

// The corpus lock is the folder `.zk/lock`: mkdir is atomic on local disks and on NFS, SMB and
// sshfs alike. Inside it the holder keeps a record (`holder`) that it rewrites on a timer with a
// growing beat counter. A waiter never compares clocks or trusts an mtime (another host's clock
// may be wrong, a network mount may cache attributes): it re-reads the record, opened afresh each
// time, and takes the lock over only once the record has stayed exactly the same for the whole
// stale window, measured on the waiter's own monotonic clock.

/** After how long an unchanging lock is taken over (ZK_MEMORY_LOCK_STALE, seconds; min 2). */
export function lockStaleMs(): number {
  return settings().lockStaleMs();
}

/**
 * How long to wait for the corpus lock before giving up (ZK_MEMORY_LOCK_TIMEOUT, seconds). The
 * default, 30 s or the stale window plus 10 s if that is longer, lets a waiter outlast the stale
 * window, so a dead lock is taken over before anyone gives up.
 */
export function lockTimeoutMs(): number {
  return settings().lockTimeoutMs();
}

/** The longest a holder keeps its lock fresh (ZK_MEMORY_LOCK_MAX_HOLD, seconds; 300). */
export function lockMaxHoldMs(): number {
  return settings().lockMaxHoldMs();
}

/**
 * Where a lock lives: the corpus lock `.zk/lock`, or another lock of the same kind (the search
 * index has its own, so index builds never make writers wait). Break and dead folders are made
 * beside it.
 */
export interface LockSite {
  /** The lock folder. */
  path: string;
  /** What it guards, for messages: `corpus`, `index`. */
  what: string;
  /** Make the folder the lock lives in. */
  prepare(): void;
}

export function corpusLockSite(root: string): LockSite {
  return { path: sidecar(root).lock, what: 'corpus', prepare: () => ensureSidecar(root) };
}

/** Who holds the corpus lock, as its record says. */
export interface Holder {
  token: string;
  host: string;
  pid: number;
  since: string;
  beat: number;
  time: string;
}

// The record has a fixed size, so a mount that caches a file's size never cuts a fresh read short.
const RECORD_BYTES = 512;
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function recordPath(site: LockSite): string {
  return path.join(site.path, 'holder');
}

function renderRecord(h: Holder): Buffer {
  const buf = Buffer.alloc(RECORD_BYTES, ' ');
  buf.write(JSON.stringify(h), 'utf8');
  buf[RECORD_BYTES - 1] = 0x0a;
  return buf;
}

/** A record's bytes, read from its file opened afresh; undefined when there is none. */
function readRecordFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(RECORD_BYTES * 2);
    return buf.subarray(0, readFully(fd, buf));
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

const readRecordBytes = (site: LockSite) => readRecordFile(recordPath(site));

function parseRecord(buf: Buffer | undefined): Holder | undefined {
  if (!buf) return undefined;
  try {
    const h = JSON.parse(buf.toString('utf8')) as Holder;
    return h && typeof h.token === 'string' ? h : undefined;
  } catch {
    return undefined;
  }
}

/** Who holds the corpus lock, when it is held and its record says so. */
export function readLockHolder(root: string): Holder | undefined {
  return readHolderAt(corpusLockSite(root));
}

function readHolderAt(site: LockSite): Holder | undefined {
  return parseRecord(readRecordBytes(site));
}

/** What is at `.zk/lock` now, as a string that changes whenever the lock changes hands or beats. */
interface Observation {
  key: string;
  /** The record's token, when there is a readable one. */
  token?: string;
  /** For the busy message: who or what holds it. */
  describe: string;
}

function dirKey(record: Buffer | undefined): string {
  return record ? `dir:${record.toString('hex')}` : 'dir:none';
}

function observe(site: LockSite): Observation | undefined {
  const lockPath = site.path;
  const st = fs.lstatSync(lockPath, { throwIfNoEntry: false });
  if (!st) return undefined;
  // No inode in the key: a FUSE mount may number a file anew on each lookup, which would look like
  // a change forever. The record's bytes (token and beat) are what tell one lock state from another.
  if (!st.isDirectory()) {
    const kind = st.isSymbolicLink() ? 'a symlink' : st.isFile() ? 'a plain file' : 'something unexpected';
    return {
      key: `other:${st.size}:${st.mtimeMs}:${st.mode}`,
      describe: `${kind} at ${path.basename(path.dirname(lockPath))}/${path.basename(lockPath)} (not a lock folder)`,
    };
  }
  const bytes = readRecordBytes(site);
  const holder = parseRecord(bytes);
  if (!bytes) return { key: dirKey(bytes), describe: 'a lock folder without a holder record' };
  if (!holder) return { key: dirKey(bytes), describe: 'a lock folder with an unreadable holder record' };
  return { key: dirKey(bytes), token: holder.token, describe: `${holder.host} pid ${holder.pid}` };
}

/**
 * Remove a lock that stayed unchanged for the stale window. Of several waiters deciding at once,
 * only the one that makes `.zk/lock.break-<id>` breaks it; it moves the lock aside, checks that what
 * it moved is still the lock it judged dead (else puts it back) and deletes it.
 */
function breakLock(site: LockSite, seen: Observation, unchangedMs: number): void {
  const lockPath = site.path;
  const id = seen.token ? seen.token.replace(/[^0-9a-zA-Z-]/g, '') : crypto.createHash('sha256').update(seen.key).digest('hex').slice(0, 32);
  const breaker = `${lockPath}.break-${id}`;
  try {
    fs.mkdirSync(breaker);
  } catch {
    // Another waiter is breaking it. One that died doing so leaves its folder behind: after a
    // second stale window with nothing changing, that folder is removed and the break tried again.
    if (unchangedMs >= 2 * lockStaleMs()) fs.rmSync(breaker, { recursive: true, force: true });
    return;
  }
  try {
    const now = observe(site);
    if (!now || now.key !== seen.key) return;
    const dead = `${lockPath}.dead-${crypto.randomUUID()}`;
    try {
      fs.renameSync(lockPath, dead);
    } catch {
      return;
    }
    // What was moved must still be what was judged dead: a record with the same token, else the
    // same thing byte for byte (a folder that has meanwhile got a record is a fresh lock).
    const isDir = fs.lstatSync(dead).isDirectory();
    const movedBytes = isDir ? readRecordFile(path.join(dead, 'holder')) : undefined;
    const fresh = seen.token ? parseRecord(movedBytes)?.token !== seen.token : seen.key.startsWith('dir:') ? !isDir || dirKey(movedBytes) !== seen.key : isDir;
    if (fresh) {
      // A fresh lock was taken between the check and the rename: give it back.
      try {
        fs.renameSync(dead, lockPath);
        return;
      } catch {
        // its holder will find its lock gone and write nothing
      }
    }
    fs.rmSync(dead, { recursive: true, force: true });
  } finally {
    fs.rmSync(breaker, { recursive: true, force: true });
  }
}

/** Write the record in place (fixed size, same file), refusing to follow a planted symlink. */
function writeRecord(site: LockSite, h: Holder, create: boolean): void {
  const flags = fs.constants.O_WRONLY | NOFOLLOW | (create ? fs.constants.O_CREAT | fs.constants.O_EXCL : 0);
  const fd = fs.openSync(recordPath(site), flags, 0o644);
  try {
    writeAll(fd, renderRecord(h), 0);
  } finally {
    fs.closeSync(fd);
  }
}

class Lock implements HeldLock {
  private readonly holder: Holder;
  private timer: NodeJS.Timeout | undefined;
  private heldSince = 0;

  constructor(private readonly site: LockSite) {
    const at = new Date(now()).toISOString();
    this.holder = { token: crypto.randomUUID(), host: os.hostname(), pid: process.pid, since: at, beat: 0, time: at };
  }

  /** One attempt: the lock is ours when mkdir succeeds. */
  tryTake(): boolean {
    try {
      fs.mkdirSync(this.site.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code === 'ENOENT') {
        this.site.prepare();
        return false;
      }
      throw err;
    }
    this.heldSince = performance.now();
    this.holder.since = this.holder.time = new Date(now()).toISOString();
    try {
      writeRecord(this.site, this.holder, true);
    } catch (err) {
      // Broken in the instant before its record was written (taken for a record-less dead lock):
      // not ours after all, so try again.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      fs.rmSync(this.site.path, { recursive: true, force: true });
      throw err;
    }
    this.startBeating();
    return true;
  }

  private startBeating(): void {
    const stale = lockStaleMs();
    const maxHold = lockMaxHoldMs();
    this.timer = setInterval(
      () => {
        // A holder stuck past its maximum stops beating, so the others take the lock over.
        if (performance.now() - this.heldSince > maxHold || !this.isOurs()) return this.stopBeating();
        this.holder.beat++;
        this.holder.time = new Date(now()).toISOString();
        try {
          writeRecord(this.site, this.holder, false);
        } catch {
          // a missed beat: the next one (well within the stale window) refreshes it
        }
      },
      Math.max(250, stale / 4),
    );
    this.timer.unref();
  }

  private stopBeating(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private isOurs(): boolean {
    return readHolderAt(this.site)?.token === this.holder.token;
  }

  assertHeld(): void {
    if (!this.isOurs()) {
      throw new ZkError('busy', `${this.site.what} busy: this process stalled past the stale time and its lock was taken over; nothing was written`);
    }
  }

  release(): void {
    this.stopBeating();
    if (!this.isOurs()) return;
    const lockPath = this.site.path;
    try {
      fs.rmSync(recordPath(this.site), { force: true });
      fs.rmdirSync(lockPath);
    } catch {
      // Something else is inside (a network client's silly-renamed file): move it all aside.
      try {
        const dead = `${lockPath}.dead-${crypto.randomUUID()}`;
        fs.renameSync(lockPath, dead);
        fs.rmSync(dead, { recursive: true, force: true });
      } catch {
        // an empty, record-less lock folder is taken over after the stale window
      }
    }
  }
}

async function acquire(site: LockSite): Promise<Lock> {
  site.prepare();
  const stale = lockStaleMs();
  const timeout = lockTimeoutMs();
  const start = performance.now();
  const lock = new Lock(site);
  let seen: Observation | undefined;
  let seenSince = 0;
  for (let attempt = 0; ; attempt++) {
    if (lock.tryTake()) return lock;
    const now = observe(site);
    const t = performance.now();
    if (now) {
      if (!seen || seen.key !== now.key) {
        seen = now;
        seenSince = t;
      } else if (t - seenSince >= stale) {
        breakLock(site, now, t - seenSince);
        if (observe(site)?.key !== seen.key) {
          seen = undefined;
          continue;
        }
      }
    }
    if (t - start >= timeout) {
      const what = seen?.describe ?? 'another process';
      throw new ZkError('busy', `${site.what} busy: lock held by ${what}; gave up after ${Math.round(timeout / 1000)} s`);
    }
    await sleep(Math.min(200, 5 + attempt * 5) * (0.5 + Math.random()));
  }
}

/**
 * Run `fn` holding the corpus lock (`.zk/lock`). Waits with jittered retries up to the lock timeout,
 * then fails with exit 4; a lock whose record stays unchanged for the stale window is taken over.
 * An append left unfinished by a killed holder is undone first (see recoverAppends).
 */
export async function withCorpusLock<T>(root: string, fn: (lock: HeldLock) => Promise<T> | T): Promise<T> {
  return withLock(corpusLockSite(root), (lock) => {
    recoverAppends(root, lock);
    return fn(lock);
  });
}

/** Run `fn` holding the lock at `site` (same guarantees as the corpus lock). */
export async function withLock<T>(site: LockSite, fn: (lock: HeldLock) => Promise<T> | T): Promise<T> {
  const lock = await acquire(site);
  try {
    return await fn(lock);
  } finally {
    lock.release();
  }
}
