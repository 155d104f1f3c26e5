import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { now, recordChange } from '../../context.js';
import { readFully, sha256, writeAll, writeTemp } from './files.js';
import type { HeldLock } from './held-lock.js';

// A rewrite replaces a note by renaming a new file over it. A program that does not take the corpus
// lock (an editor, a script, `echo >>`, a sync tool) may append to the note after it was checked
// and before the rename, or write into the old file it opened earlier: those bytes land in the
// replaced inode, which no name reaches any more. So the old file is kept open across the rename,
// and whatever reached it after the check is carried over into the new version, until the old file
// has stayed quiet for a short settle. docs/concurrency.md says what can still race.

/** How long the replaced file must stay unchanged before it is let go. */
const SETTLE_MS = 50;
/**
 * A note changed this recently (ms) may have a writer that still has it open: only then does a
 * rewrite wait for the settle. A note nobody wrote for longer is carried over once, at once, so a
 * run that rewrites thousands of quiet notes does not wait thousands of settles.
 */
const ACTIVE_MS = 2000;
/** How long at most a rewrite keeps carrying bytes from a file that is written without pause. */
const CARRY_LIMIT_MS = 1_000;
const POLL_MS = 1;
const CHUNK = 1 << 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A swap made: how many bytes that reached the old file after the plan were carried into the new one. */
export interface Swapped {
  carried: number;
}

/** What a rewrite was planned from: a file's size, mtime and content hash when it was read. */
export interface ReadState {
  file: string;
  size: number;
  mtimeMs: number;
  hash: string;
}

/** The read state of a note as it was loaded (its text is its bytes: UTF-8 round-trips exactly). */
export function readStateOf(n: { file: string; size: number; mtimeMs: number; raw: string }): ReadState {
  return { file: n.file, size: n.size, mtimeMs: n.mtimeMs, hash: sha256(Buffer.from(n.raw, 'utf8')) };
}

/** The hash of a file's first `size` bytes, read through `fd`; undefined when it is shorter. */
function prefixHash(fd: number, size: number): string | undefined {
  const buf = Buffer.alloc(size);
  return readFully(fd, buf) === size ? sha256(buf) : undefined;
}

/** The note opened, when it still begins with exactly the bytes it was planned from. */
interface Opened {
  fd: number;
  /** A symlinked note: its target keeps its own name, so nothing written to it is lost. */
  symlink: boolean;
  /** Changed within ACTIVE_MS: a writer may still have it open. */
  active: boolean;
}

function openAsRead(r: ReadState): Opened | undefined {
  let fd: number;
  try {
    fd = fs.openSync(r.file, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    const at = fs.lstatSync(r.file);
    const symlink = at.isSymbolicLink();
    // Bytes appended since the plan (a merge, a hand edit) are no change to what was planned from:
    // they are carried over after the swap.
    const same = (symlink ? st.size === r.size : at.ino === st.ino && st.size >= r.size) && prefixHash(fd, r.size) === r.hash;
    if (same) return { fd, symlink, active: now() - Math.max(st.mtimeMs, st.ctimeMs) < ACTIVE_MS };
  } catch {
    // Gone or unreadable meanwhile: not as read.
  }
  fs.closeSync(fd);
  return undefined;
}

/** Append bytes `[from, end)` of `src` to `dest` (an O_APPEND descriptor). */
function copyRange(src: number, from: number, end: number, dest: number): void {
  const buf = Buffer.alloc(Math.min(CHUNK, end - from));
  for (let at = from; at < end; ) {
    const n = fs.readSync(src, buf, 0, Math.min(buf.length, end - at), at);
    if (n <= 0) break;
    writeAll(dest, buf.subarray(0, n));
    at += n;
  }
}

/**
 * Carry what is written to the replaced file `displaced` past `from` over to `dest`: with `settle`,
 * until it has stayed quiet for the settle (or the carry limit passed), else what is there now.
 * Returns how far it was carried.
 */
async function carryOver(displaced: number, from: number, dest: number, settle: boolean): Promise<number> {
  const start = performance.now();
  let carried = from;
  let quietSince = start;
  for (;;) {
    const size = fs.fstatSync(displaced).size;
    const t = performance.now();
    if (size > carried) {
      copyRange(displaced, carried, size, dest);
      carried = size;
      quietSince = t;
    } else if (!settle || t - quietSince >= SETTLE_MS || t - start >= CARRY_LIMIT_MS) {
      return carried;
    }
    await sleep(POLL_MS);
  }
}

/**
 * Rename `tmp` over `file` and carry over what reaches the replaced file (`displaced`) past
 * `known` bytes. Returns the new file, open for appending (the caller closes it), and how many
 * bytes were carried.
 */
async function swapCarrying(
  lock: HeldLock,
  tmp: string,
  file: string,
  displaced: number,
  known: number,
  settle: boolean,
): Promise<{ dest: number; carried: number }> {
  const dest = fs.openSync(tmp, fs.constants.O_RDWR | fs.constants.O_APPEND);
  try {
    lock.assertHeld();
    fs.renameSync(tmp, file);
    recordChange({ path: file, what: 'changed' });
    const carried = (await carryOver(displaced, known, dest, settle)) - known;
    if (carried > 0) fs.fsyncSync(dest);
    return { dest, carried };
  } catch (err) {
    fs.closeSync(dest);
    throw err;
  }
}

/**
 * Compare-and-swap under the corpus lock: put `tmp` (a finished temp file beside the note) in
 * place only if the note still begins with the bytes the new content was planned from; undefined
 * when they changed, and the caller plans again from what is there now.
 *
 * Bytes appended to the old file after the plan (a merge meanwhile, or a program that ignores the
 * lock, even after the check) are carried into the new version. If the old file was instead changed in place after the check (an editor
 * saving into the file it had open), the new version is not kept: the old file's text is put back
 * and the answer is undefined, so the caller plans again from it.
 */
export async function swapIfUnchanged(lock: HeldLock, expected: ReadState, tmp: string): Promise<Swapped | undefined> {
  const old = openAsRead(expected);
  if (!old) return undefined;
  try {
    if (old.symlink) {
      lock.assertHeld();
      fs.renameSync(tmp, expected.file);
      recordChange({ path: expected.file, what: 'changed' });
      return { carried: 0 };
    }
    const { dest, carried } = await swapCarrying(lock, tmp, expected.file, old.fd, expected.size, old.active);
    try {
      if (prefixHash(old.fd, expected.size) === expected.hash) return { carried };
      await putBack(lock, expected.file, old.fd, dest);
      return undefined;
    } finally {
      fs.closeSync(dest);
    }
  } finally {
    fs.closeSync(old.fd);
  }
}

/**
 * Undo a swap whose old file was changed in place after the check: the old file's whole text goes
 * back under the name, and what reached the new version meanwhile (past what it held) follows it.
 */
async function putBack(lock: HeldLock, file: string, old: number, ours: number): Promise<void> {
  const known = fs.fstatSync(ours).size;
  const st = fs.fstatSync(old);
  const text = Buffer.alloc(st.size);
  readFully(old, text);
  const back = writeTemp(file, text, st.mode & 0o7777);
  try {
    fs.closeSync((await swapCarrying(lock, back, file, ours, known, true)).dest);
  } finally {
    fs.rmSync(back, { force: true });
  }
}

/** The same, writing the temp file itself (for small files changed under the lock). */
export async function replaceIfUnchanged(lock: HeldLock, expected: ReadState, content: string): Promise<Swapped | undefined> {
  const st = fs.lstatSync(expected.file, { throwIfNoEntry: false });
  const tmp = writeTemp(expected.file, content, st?.isFile() ? st.mode & 0o7777 : 0o644);
  try {
    return await swapIfUnchanged(lock, expected, tmp);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
