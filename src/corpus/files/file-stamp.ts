import type fs from 'node:fs';

/**
 * What one stat shows of a file, to tell cheaply whether it may have changed: its size and
 * mtime, and its ctime and inode, which an edit moves even when it keeps the size and puts the
 * mtime back (`touch -r`, rsync, a sync tool) or lands in the same coarse timestamp tick.
 */
export interface FileStamp {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  size: number;
}

export function stampOf(st: fs.Stats): FileStamp {
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, size: st.size };
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.size === b.size;
}

/**
 * A file changed this close (ms) before it was stated may change again within the same timestamp
 * tick (1 s or 2 s on some file systems) with its stamp unchanged, so its stamp does not vouch for
 * its content: it is read again next time (git treats such "racy" entries the same way).
 */
export const RACY_MS = 2000;

/** Whether a stamp taken at `seenAt` (ms since the epoch) vouches for the file's content. */
export function stampTrusted(s: Pick<FileStamp, 'mtimeMs' | 'ctimeMs'>, seenAt: number): boolean {
  return Math.max(s.mtimeMs, s.ctimeMs) < seenAt - RACY_MS;
}
