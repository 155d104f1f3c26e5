import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../errors.js';
import { ensureSidecar } from './lock.js';
import { sidecar } from './paths.js';

/** Hard links are how a finished file appears under its name in one step without overwriting. */
function publishExclusive(tmp: string, dest: string): void {
  try {
    fs.linkSync(tmp, dest);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw err;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    // File systems without hard links: exclusive copy (COPYFILE_EXCL refuses an existing name).
    fs.copyFileSync(tmp, dest, fs.constants.COPYFILE_EXCL);
  }
}

/** Write a file fully under `.zk/tmp/`, then publish it under `dest` only if that name is free. */
export function createFileExclusive(root: string, dest: string, content: string): boolean {
  ensureSidecar(root);
  const tmpDir = sidecar(root).tmp;
  fs.mkdirSync(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, `${process.pid}-${crypto.randomUUID()}.tmp`);
  const fd = fs.openSync(tmp, 'wx');
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    publishExclusive(tmp, dest);
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
export function createNoteFile(root: string, stem: string, content: string, unique: boolean): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${stem}.md` : `${stem}-${n}.md`;
    if (createFileExclusive(root, path.join(root, name), content)) return name;
    if (!unique) throw new ZkError('exists', `note already exists: ${name}`);
  }
}

/** Append text to a file in one O_APPEND write. */
export function appendOnce(file: string, text: string): void {
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND);
  try {
    const buf = Buffer.from(text, 'utf8');
    const written = fs.writeSync(fd, buf, 0, buf.length);
    if (written !== buf.length) throw new ZkError('io', `short write to ${path.basename(file)}`);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Replace (or create) a file's content atomically: temp file + rename, so a reader sees the old
 * content or the new, never a half-written file. An existing file keeps its mode.
 */
export function replaceFile(root: string, file: string, content: string): void {
  ensureSidecar(root);
  const tmpDir = sidecar(root).tmp;
  fs.mkdirSync(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, `${process.pid}-${crypto.randomUUID()}.tmp`);
  try {
    fs.writeFileSync(tmp, content, { flag: 'wx' });
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st) fs.chmodSync(tmp, st.mode & 0o7777);
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** sha256 of some text, hex. */
export function sha256(text: string | Buffer): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}
