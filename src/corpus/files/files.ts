import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { recordChange } from '../../context.js';
import { ZkError } from '../../errors.js';
import type { HeldLock } from './held-lock.js';

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/**
 * Write all of `buf` (at `position`, or at the end for an O_APPEND descriptor). A short write is
 * retried for the rest; one that writes nothing is a full disk.
 */
export function writeAll(fd: number, buf: Buffer, position?: number): void {
  for (let n = 0; n < buf.length; ) {
    const w = fs.writeSync(fd, buf, n, buf.length - n, position === undefined ? null : position + n);
    if (w <= 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    n += w;
  }
}

/** Read into `buf` from `position` until it is full or the file ends; how many bytes were read. */
export function readFully(fd: number, buf: Buffer, position = 0): number {
  let n = 0;
  for (let got = 1; got > 0 && n < buf.length; n += got) got = fs.readSync(fd, buf, n, buf.length - n, position + n);
  return n;
}

/**
 * A temp name beside `dest`: on the destination's own file system (so the final rename or link
 * never crosses devices), hidden and without `.md`, so no listing, search or tend sees it.
 */
export function tempBeside(dest: string): string {
  return path.join(path.dirname(dest), `.zk-tmp-${process.pid}-${crypto.randomUUID()}`);
}

/**
 * Replace a derived file (a cache, the index's own records) atomically: written beside it, then
 * renamed over it, so a reader sees the old file or the new one. Not synced to disk: derived data
 * a crash left behind is checked and rebuilt by its reader. `text` may come in pieces, written in
 * turn: a file too large to be made as one string.
 */
export function replaceDerivedFile(file: string, text: string | Iterable<string>): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = tempBeside(file);
  try {
    const fd = fs.openSync(tmp, 'wx');
    try {
      for (const piece of typeof text === 'string' ? [text] : text) writeAll(fd, Buffer.from(piece, 'utf8'));
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Create `file` (which must not exist) and write `content` fully and durably; nothing is left on failure. */
export function writeNewFile(file: string, content: string | Buffer, mode = 0o644): string {
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, mode);
  try {
    writeAll(fd, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
    fs.fsyncSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  return file;
}

/** Write `content` fully and durably to a new temp file beside `dest`; nothing is left on failure. */
export function writeTemp(dest: string, content: string | Buffer, mode = 0o644): string {
  return writeNewFile(tempBeside(dest), content, mode);
}

/**
 * Replace `file` whole with `body` as JSON, readable by this user alone: a 0600 file in a 0700
 * folder, written to a temp file beside it and renamed over it (the caller holds its lock).
 */
export function writePrivateJson(file: string, body: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = writeTemp(file, `${JSON.stringify(body, null, 1)}\n`, 0o600);
  try {
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * writeTemp, waiting for the disk in the thread pool instead of the event loop: several files
 * written at once share the file system's flushes, where one after another each waits for its own.
 */
export async function writeTempAsync(dest: string, content: string): Promise<string> {
  const tmp = tempBeside(dest);
  const h = await fs.promises.open(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, 0o644);
  try {
    await h.writeFile(Buffer.from(content, 'utf8'));
    await h.sync();
  } catch (err) {
    await h.close();
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  await h.close();
  return tmp;
}

/** Hard links are how a finished file appears under its name in one step without overwriting. */
function publishExclusive(tmp: string, dest: string): void {
  try {
    fs.linkSync(tmp, dest);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw err;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    // File systems without hard links: exclusive copy (COPYFILE_EXCL refuses an existing name).
    try {
      fs.copyFileSync(tmp, dest, fs.constants.COPYFILE_EXCL);
    } catch (copyErr) {
      // A copy cut short (a full disk) must not leave a partial file under the name.
      if ((copyErr as NodeJS.ErrnoException).code !== 'EEXIST') fs.rmSync(dest, { force: true });
      throw copyErr;
    }
  }
}

/**
 * Write a file fully beside `dest`, then publish it under `dest` only if that name is free (a
 * symlink planted there counts as taken). With `lock`, the lock is checked to be still ours first.
 */
export function createFileExclusive(_root: string, dest: string, content: string, lock?: HeldLock): boolean {
  return publishTemp(writeTemp(dest, content), dest, lock);
}

/** createFileExclusive, with the file written by writeTempAsync: for many files created at once. */
export async function createFileExclusiveAsync(dest: string, content: string): Promise<boolean> {
  return publishTemp(await writeTempAsync(dest, content), dest);
}

/** Publish a file written whole at `tmp` under `dest` if that name is free; the temp file never stays. */
function publishTemp(tmp: string, dest: string, lock?: HeldLock): boolean {
  try {
    lock?.assertHeld();
    publishExclusive(tmp, dest);
    recordChange({ path: dest, what: 'created' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Create a note file atomically under `<stem>.md`; with `unique`, take the first free name among
 * `<stem>-2.md`, `<stem>-3.md`, … Returns the file name used.
 */
export function createNoteFile(root: string, stem: string, content: string, unique: boolean, lock?: HeldLock): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${stem}.md` : `${stem}-${n}.md`;
    if (createFileExclusive(root, path.join(root, name), content, lock)) return name;
    if (!unique) throw new ZkError('exists', `note already exists: ${name}`);
  }
}

/**
 * Replace (or create) a file's content atomically: temp file + rename, so a reader sees the old
 * content or the new, never a half-written file. An existing file keeps its mode. A symlink at
 * `file` is replaced, never written through.
 */
export function replaceFile(_root: string, file: string, content: string, lock?: HeldLock): void {
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  const tmp = writeTemp(file, content, st?.isFile() ? st.mode & 0o7777 : 0o644);
  try {
    lock?.assertHeld();
    fs.renameSync(tmp, file);
    recordChange({ path: file, what: st ? 'changed' : 'created' });
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Open a file under `.zk/` for appending without following a planted symlink: a symlink there
 * would make the tool write into a file outside the corpus.
 */
export function openSidecarForAppend(file: string): number {
  try {
    return fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | NOFOLLOW, 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw refusedSymlink(file);
    throw err;
  }
}

/**
 * A folder of the corpus the tool writes into (under `.zk/`, or `.archive/`): made when missing,
 * refused when it is a symlink or not a folder, so nothing is ever written through one that a
 * person or a git remote planted to lead out of the corpus.
 */
export function sidecarDir(dir: string): string {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st) {
    try {
      fs.mkdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return sidecarDir(dir);
  }
  if (st.isSymbolicLink()) throw refusedSymlink(dir);
  if (!st.isDirectory()) throw new ZkError('io', `${dir} is not a folder: remove it and run again`);
  return dir;
}

export function refusedSymlink(p: string): ZkError {
  return new ZkError('io', `refusing to write through a symlink planted at ${p}: remove it and run again`);
}

/** sha256 of some text, hex. */
export function sha256(text: string | Buffer): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}
