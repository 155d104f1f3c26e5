import fs from 'node:fs';
import path from 'node:path';
import { readFully } from '../corpus/files/files.js';
import { isNoteName } from '../corpus/files/note-files.js';
import { indexLocation } from './location.js';
import { namesWritten } from './title-key.js';

/**
 * The change journal: one line (a JSON string, the note's file name) per note file the tool itself
 * created, appended to or replaced, in the index folder. A search reads only what was appended
 * since the index last looked, instead of stating every note, to know which notes the tool
 * changed. Each line is one O_APPEND write, so concurrent writers never interleave within a line.
 *
 * A line is appended after the note's change is on disk and before the writing call returns, so
 * a search that starts after a write finished always finds its line. The journal is kept only
 * where an index exists; it is never truncated in place (see `rotateJournal`).
 */
export function journalPath(indexDir: string): string {
  return path.join(indexDir, 'changes.jsonl');
}

/** Record that the tool changed `file` (a note file directly in a corpus root). Never throws. */
export function journalWrite(file: string): void {
  const name = path.basename(file);
  if (!isNoteName(name)) return;
  try {
    const dir = indexLocation(path.dirname(file)).dir;
    if (!fs.existsSync(dir)) return; // no index yet: its first build reads every note anyway
    fs.appendFileSync(journalPath(dir), `${JSON.stringify(name)}\n`);
  } catch {
    // A lost line costs freshness only until the next full scan (see fts.ts), never a note.
  }
  namesWritten(file);
}

/** Where the journal stands: its identity and length. */
export interface JournalMark {
  ino: number;
  size: number;
}

export function journalMark(indexDir: string): JournalMark {
  const st = fs.statSync(journalPath(indexDir), { throwIfNoEntry: false });
  return st ? { ino: st.ino, size: st.size } : { ino: 0, size: 0 };
}

/**
 * The note names appended since `from`, up to `to`; undefined when the journal is not the one
 * `from` was taken of (rotated or removed), so the caller must scan every note instead.
 */
export function journalSince(indexDir: string, from: JournalMark, to: JournalMark): Set<string> | undefined {
  if (to.ino !== from.ino || to.size < from.size) return undefined;
  if (to.size === from.size) return new Set();
  const fd = fs.openSync(journalPath(indexDir), 'r');
  try {
    const buf = Buffer.alloc(to.size - from.size);
    const n = readFully(fd, buf, from.size);
    const names = new Set<string>();
    for (const line of buf.subarray(0, n).toString('utf8').split('\n')) {
      try {
        if (line) names.add(String(JSON.parse(line)));
      } catch {
        return undefined; // a torn line: trust nothing of it
      }
    }
    return names;
  } finally {
    fs.closeSync(fd);
  }
}

/** Past this size the journal is set aside and the next refresh scans every note. */
export const JOURNAL_MAX_BYTES = 1 << 20;

/**
 * Set a long journal aside (under the index lock, before a full scan): writers that still append
 * to the old file did their change before the scan that follows starts, so the scan sees it.
 */
export function rotateJournal(indexDir: string): void {
  try {
    fs.rmSync(journalPath(indexDir), { force: true });
  } catch {
    // left for the next refresh
  }
}
