import fs from 'node:fs';
import path from 'node:path';
import { current } from '../context.js';
import { tempBeside } from './files.js';
import { isKind } from './kinds.js';
import { listNoteFiles, readNoteFile, type Note, type NoteInfo } from './notes.js';

// What whole-corpus commands (`list`, `status`) need of every note, without reading every note.
// The answers are kept in a cache file (where the NoteCacheFile port says: the index folder), keyed
// by file name with the stat that was seen; a note whose stat moved is read again. The files stay
// the truth: a missing, damaged or foreign cache is rebuilt from them.

/** A note's public fields and the few the library sorts and links by, without its text. */
export interface NoteMeta extends NoteInfo {
  supersedes: string[];
  size: number;
  mtimeMs: number;
}

/** What was seen of a file when its fields were read: any change to one of these reads it again. */
interface Seen {
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  size: number;
}

type Row = [name: string, mtimeMs: number, ctimeMs: number, ino: number, size: number, uuid: string, title: string, date: string,
  kind: string | null, author: string | null, superseded_by: string | null, supersedes: string[]];

interface CacheFile {
  version: number;
  /** When the stats of the rows were taken (ms since the epoch, this host's clock). */
  seenAt: number;
  rows: Row[];
}

const VERSION = 1;
/**
 * A file changed this close (ms) before it was stated may change again within the same timestamp
 * tick (coarse on some file systems) with its stat unchanged: its row is not trusted, and the note
 * is read again next time.
 */
const RACY_MS = 2000;

const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrOrNull = (v: unknown) => v === null || isStr(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function validRow(r: unknown): r is Row {
  return Array.isArray(r) && r.length === 12 && isStr(r[0]) && isNum(r[1]) && isNum(r[2]) && isNum(r[3]) && isNum(r[4])
    && isStr(r[5]) && isStr(r[6]) && isStr(r[7]) && (r[8] === null || isKind(r[8])) && isStrOrNull(r[9]) && isStrOrNull(r[10])
    && Array.isArray(r[11]) && r[11].every(isStr);
}

/** The cache's rows by file name, with when they were seen; undefined when missing or damaged. */
function readCache(file: string): { seenAt: number; rows: Map<string, Row> } | undefined {
  try {
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as CacheFile;
    if (c.version !== VERSION || !isNum(c.seenAt) || !Array.isArray(c.rows) || !c.rows.every(validRow)) return undefined;
    return { seenAt: c.seenAt, rows: new Map(c.rows.map((r) => [r[0], r])) };
  } catch {
    return undefined;
  }
}

/**
 * Write the cache atomically (temp file + rename): a reader sees the old cache or the new one.
 * Not synced to disk: a cache a crash left truncated fails to parse and is rebuilt, which costs
 * less than an fsync of the whole cache after every change. A cache that cannot be written (a
 * read-only corpus) is simply not kept.
 */
function writeCache(file: string, cache: CacheFile): void {
  let tmp: string | undefined;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    tmp = tempBeside(file);
    fs.writeFileSync(tmp, JSON.stringify(cache), { flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch {
    // derived data: the next call reads the notes again
  } finally {
    if (tmp) fs.rmSync(tmp, { force: true });
  }
}

function metaOf(name: string, r: Row): NoteMeta {
  return {
    uuid: r[5], slug: name.replace(/\.md$/, ''), path: name, title: r[6], date: r[7], kind: r[8] as NoteMeta['kind'],
    author: r[9], superseded_by: r[10], supersedes: r[11], size: r[4], mtimeMs: r[1],
  };
}

function rowOf(n: Note, st: Seen): Row {
  return [n.path, st.mtimeMs, st.ctimeMs, st.ino, st.size, n.uuid, n.title, n.date, n.kind, n.author, n.superseded_by, n.supersedes];
}

/** The fields of a note read from its file (nothing of the text is kept). */
export function noteMeta(n: Note): NoteMeta {
  return {
    uuid: n.uuid, slug: n.slug, path: n.path, title: n.title, date: n.date, kind: n.kind, author: n.author,
    superseded_by: n.superseded_by, supersedes: n.supersedes, size: n.size, mtimeMs: n.mtimeMs,
  };
}

function stat(file: string): Seen | undefined {
  try {
    const st = fs.statSync(file);
    return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, size: st.size };
  } catch {
    return undefined;
  }
}

const sameStat = (r: Row, st: Seen) => r[1] === st.mtimeMs && r[2] === st.ctimeMs && r[3] === st.ino && r[4] === st.size;

/**
 * Every readable note of the corpus, in file-name order, as `NoteMeta`. With a cache file (the
 * context's `noteCache` port), every note file is stated and only those whose stat moved since the
 * cache saw them (or that it saw too close to a change to trust) are read; without one, every note
 * is read. A note whose frontmatter is invalid is never cached, so its warning shows every time, as
 * it does when the note is read.
 */
export function loadNoteMetas(root: string): NoteMeta[] {
  const cacheFile = current().noteCache?.(root);
  if (!cacheFile) return loadAll(root);
  const seenAt = Date.now();
  const cache = readCache(cacheFile);
  const trustBefore = cache ? cache.seenAt - RACY_MS : -Infinity;
  const rows: Row[] = [];
  const metas: NoteMeta[] = [];
  let reused = 0;
  // Note names are plain top-level names: joined without path.join's normalizing, 50,000 times.
  const dir = root.endsWith(path.sep) ? root : root + path.sep;
  for (const name of listNoteFiles(root)) {
    const st = stat(dir + name);
    if (!st) continue; // gone since the listing
    const known = cache?.rows.get(name);
    if (known && sameStat(known, st) && Math.max(st.mtimeMs, st.ctimeMs) < trustBefore) {
      reused++;
      rows.push(known);
      metas.push(metaOf(name, known));
      continue;
    }
    const note = readNoteFile(root, name);
    if (!note) continue;
    metas.push(noteMeta(note));
    // The stat taken before the read: a change during the read shows as a moved stat next time.
    if (!note.parsed.yamlError) rows.push(rowOf(note, st));
  }
  // Rewritten when a row was added or changed, or one the cache had is gone (a note removed).
  if (!cache || rows.length !== reused || reused !== cache.rows.size) writeCache(cacheFile, { version: VERSION, seenAt, rows });
  return metas;
}

function loadAll(root: string): NoteMeta[] {
  const metas: NoteMeta[] = [];
  for (const name of listNoteFiles(root)) {
    const n = readNoteFile(root, name);
    if (n) metas.push(noteMeta(n));
  }
  return metas;
}
