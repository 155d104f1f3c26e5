import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { now, settings } from '../context.js';
import { sameStamp, stampTrusted, type FileStamp } from '../corpus/files/file-stamp.js';
import { isNoteFile, listNoteFiles } from '../corpus/files/note-files.js';
import type { Note } from '../corpus/note/notes.js';
import { JOURNAL_MAX_BYTES, journalMark, journalPath, journalSince, rotateJournal, type JournalMark } from './journal.js';
import { readIndexRecord, writeIndexRecord } from './index-record.js';
import { indexDir } from './lance.js';
import { indexLocation } from './location.js';
import { contentHash, manifestId, readManifest, type FileState, type KnownManifest, type Manifest } from './manifest.js';
import type { ResidentIndex } from './resident-index.js';
import type { FileStates } from './file-states.js';
import type { Watched } from '../ports.js';

// What changed in the corpus since the full-text index last looked, found as cheaply as is sound
// (docs/performance.md, "What a search checks to stay fresh"): the notes' stamps against the
// manifest, the change journal, the root folder's metadata, and the marks that remember the last look.

/** The note parser (it loads a YAML parser): loaded only when a note must be read. */
type NoteParser = typeof import('../corpus/note/notes.js');

export const noteParser = (): Promise<NoteParser> => import('../corpus/note/notes.js');

/** The change set between the files on disk and the manifest. */
export interface IndexDelta {
  upsert: Map<string, { note: Note; state: FileState }>;
  restat: Map<string, FileState>;
  removed: string[];
  files: number;
}

/** A note file as one stat shows it. */
export interface Stat extends FileStamp {
  /** The note's file name (a note's metadata is its stat: see `NoteMeta`). */
  path: string;
  /** How many names the file has (hard links), when the stat said. */
  nlink?: number;
}

/** Stat one note file; undefined when it is gone. */
function statNote(root: string, name: string): Stat | undefined {
  // A name from the listing holds no separator: joined plainly, as path.join costs a normalisation per note.
  const st = fs.statSync(`${root}${path.sep}${name}`, { throwIfNoEntry: false });
  return st && { path: name, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, size: st.size, nlink: st.nlink };
}

/** Stat every note file of the root, in name order (a file gone meanwhile is left out). */
export function statNotes(root: string): Stat[] {
  const out: Stat[] = [];
  for (const name of listNoteFiles(root)) {
    const st = statNote(root, name);
    if (st) out.push(st);
  }
  return out;
}

/**
 * One digest of every note's name and stamp, in name order, stated at `seenAt`: when the files on
 * disk give the digest the manifest gave, every file passes the per-file check, so the manifest
 * need not be read. '' (no digest) when a stamp is too recent to vouch for its file's content.
 */
export function statesDigest(states: readonly Stat[], seenAt: number): string {
  const hash = crypto.createHash('sha256');
  // The numbers are hashed as they are stored (turning 200,000 of them into text cost more than the hash).
  const stamps = new Float64Array(states.length * 4);
  let names = '';
  for (let i = 0; i < states.length; i++) {
    const s = states[i];
    if (!stampTrusted(s, seenAt)) return '';
    stamps[i * 4] = s.mtimeMs;
    stamps[i * 4 + 1] = s.ctimeMs;
    stamps[i * 4 + 2] = s.ino;
    stamps[i * 4 + 3] = s.size;
    names += `${s.path}\n`;
    if (names.length > 65536) {
      hash.update(names);
      names = '';
    }
  }
  return hash.update(names).update(new Uint8Array(stamps.buffer)).digest('hex').slice(0, 32);
}

/**
 * What a stat-level comparison with the manifest found: the notes to read (new, their stamp moved,
 * or not vouched for by it) and the notes gone, stated at `seenAt`. Reading them needs the note
 * parser, loaded only then.
 */
export interface Pending {
  read: Stat[];
  removed: string[];
  files: number;
  seenAt: number;
}

/** Whether a note file must be read: unknown to the manifest, its stamp moved, or unsure. */
const moved = (st: Stat, prev: Omit<FileState, 'hash'> | undefined) => !prev || prev.unsure || !sameStamp(prev, st);

/** Compare every note file's stat, taken at `seenAt`, with the manifest. */
function comparedAll(scan: readonly Stat[], known: FileStates, seenAt: number): Pending {
  let found = 0;
  const read = scan.filter((st) => {
    // The stamp alone: a check of every note makes no hash string per note (see `FileStates.stamp`).
    const prev = known.stamp(st.path);
    if (prev) found++;
    return moved(st, prev);
  });
  // The names are unique: when every known one was found, none is gone (no set of 50,000 names to build).
  const seen = found === known.size ? undefined : new Set(scan.map((s) => s.path));
  return { read, removed: seen ? [...known.keys()].filter((name) => !seen.has(name)) : [], files: scan.length, seenAt };
}

/** What the index records of a note file read after the stat `st` taken at `seenAt`. */
function stateOf(st: Stat, hash: string, seenAt: number): FileState {
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, size: st.size, hash, unsure: !stampTrusted(st, seenAt) };
}

const sameState = (a: FileState, b: FileState) => sameStamp(a, b) && a.hash === b.hash && a.unsure === b.unsure;

/** Read the pending notes: a file whose content hash is unchanged only has its stat recorded. */
function readPending(root: string, pending: Pending, known: FileStates, parser: NoteParser): IndexDelta {
  const delta: IndexDelta = { upsert: new Map(), restat: new Map(), removed: [...pending.removed], files: pending.files };
  for (const st of pending.read) {
    const prev = known.get(st.path);
    const file = path.join(root, st.path);
    let buf: Buffer;
    try {
      buf = fs.readFileSync(file);
    } catch {
      if (prev) delta.removed.push(st.path);
      continue;
    }
    const state = stateOf(st, contentHash(buf), pending.seenAt);
    if (prev && prev.hash === state.hash) {
      if (!sameState(prev, state)) delta.restat.set(st.path, state);
      continue;
    }
    const text = parser.decodeNote(buf, st.path);
    if (text === undefined) {
      if (prev) delta.removed.push(st.path);
      continue;
    }
    delta.upsert.set(st.path, { note: parser.noteFromText(root, file, text, st.size, st.mtimeMs), state });
  }
  return delta;
}

/** Read what a stat comparison found pending, loading the note parser only if a note must be read. */
export async function resolvePending(root: string, pending: Pending, known: FileStates): Promise<IndexDelta> {
  if (!pending.read.length) return { upsert: new Map(), restat: new Map(), removed: [...pending.removed], files: pending.files };
  return readPending(root, pending, known, await noteParser());
}

/** Compare every note file of `scan` with what the index knows (`known`): only new or changed files are read. */
export function computeDelta(root: string, scan: readonly Stat[], known: FileStates, seenAt: number, parser: NoteParser): IndexDelta {
  return readPending(root, comparedAll(scan, known, seenAt), known, parser);
}

/**
 * Compare only the notes that can have changed: those the change journal names, and, when the
 * root folder's entries changed (`listing` given), the names added and removed.
 */
function comparedSome(root: string, known: FileStates, journal: Set<string>, listing: string[] | undefined, seenAt: number): Pending {
  const pending: Pending = { read: [], removed: [], files: listing?.length ?? known.size, seenAt };
  const present = listing && new Set(listing);
  const candidates = new Set(journal);
  if (present) {
    for (const name of present) if (!known.has(name)) candidates.add(name);
    for (const name of known.keys()) if (!present.has(name)) pending.removed.push(name);
  }
  for (const name of candidates) {
    const st = (present ? present.has(name) : isNoteFile(root, name)) ? statNote(root, name) : undefined;
    if (!st) {
      if (!present && known.has(name)) pending.removed.push(name);
      continue;
    }
    if (moved(st, known.stamp(name))) pending.read.push(st);
  }
  if (!present) pending.files = known.size + pending.read.filter((st) => !known.has(st.path)).length - pending.removed.length;
  return pending;
}

/**
 * What the index last saw of the corpus, to tell cheaply whether anything changed since: the root
 * folder's own metadata (any note added, removed or renamed changes it), how far the change
 * journal had been read, and when every note file was last checked. Kept in a small file of its
 * own so that a search on an unchanged corpus reads neither the manifest nor any note.
 */
export interface Marks {
  version: number;
  /** The manifest these marks describe: its `refreshedAt`, its file's identity, its notes' digest. */
  refreshedAt: string;
  manifestId: string;
  digest: string;
  root: { mtimeMs: number; ctimeMs: number; ino: number; seenAt: number };
  journal: JournalMark;
  /** When the last check of every note file started (ms since the epoch). */
  scannedAt: number;
  notes: number;
}

export const MARKS_VERSION = 2;

/** What one look at the corpus found, before it is tied to a manifest. */
export type ScanMarks = Omit<Marks, 'refreshedAt' | 'manifestId' | 'digest'>;

export function marksPath(root: string): string {
  return path.join(indexDir(root), 'marks.json');
}

/** The marks, when they describe the manifest on disk (marks written for another describe nothing now). */
export function readMarks(root: string): Marks | undefined {
  const m = readIndexRecord<Marks>(marksPath(root), MARKS_VERSION)?.record;
  return m && m.manifestId === manifestId(root) ? m : undefined;
}

/**
 * The marks moved to the manifest `to` that only compacted the table of `from`: no note changed,
 * so what they say of the notes still holds. Nothing when they described another manifest.
 */
export function carryMarks(root: string, from: string, to: string, refreshedAt: string): void {
  const m = readIndexRecord<Marks>(marksPath(root), MARKS_VERSION)?.record;
  if (m?.manifestId === from) writeMarks(root, { ...m, manifestId: to, refreshedAt });
}

export function rootState(root: string): Marks['root'] {
  const seenAt = now();
  const st = fs.statSync(root);
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, seenAt };
}

function rootUnchanged(before: Marks['root'], now: Marks['root']): boolean {
  // A folder changed just before the look may change again within one coarse timestamp tick.
  return stampTrusted(before, before.seenAt) && before.mtimeMs === now.mtimeMs && before.ctimeMs === now.ctimeMs && before.ino === now.ino;
}

/** The journal's mark, creating it empty first so that the tool's first write does not force a full scan. */
export function markJournal(dir: string): JournalMark {
  const m = journalMark(dir);
  if (m.ino !== 0) return m;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.closeSync(fs.openSync(journalPath(dir), 'a'));
  } catch {
    // no journal: every later refresh scans in full, which is always sound
  }
  return journalMark(dir);
}

/** What a refresh has to do, found without the index lock. */
export type RefreshPlan =
  /** Nothing changed; `record`, when given, is the look to record in the marks. */
  | { kind: 'unchanged'; notes: number; refreshedAt: string; record?: Marks }
  /**
   * `digest`: what the marks may record once the index holds `pending` — the digest of the full
   * scan that found it, the old digest after a partial check that found nothing, else none.
   */
  | { kind: 'delta'; manifest: KnownManifest; pending: Pending; seen: ScanMarks; digest: { ifEmpty: string; ifApplied: string } }
  | { kind: 'rebuild' };

/**
 * Find what changed since the index last looked, as cheaply as is sound:
 * - every note file is checked (stat, then read if its stamp moved or was unsure) when the corpus is
 *   small, on a network file system (other hosts' writes reach neither this host's journal nor,
 *   reliably, the folder's metadata), when the last full check is older than
 *   `ZK_MEMORY_INDEX_SCAN_SECONDS`, or when anything cheaper cannot be trusted; when every stat
 *   matches the marks' digest of the manifest, the manifest itself is not read;
 * - otherwise only the notes the change journal names (the tool's own writes, from any process on
 *   this host), plus, when the root folder's metadata moved, the notes added and removed. A note
 *   replaced under its own name by another program (an editor's save-by-rename) with nothing else
 *   changed is caught by the folder's metadata too, and triggers a full check.
 * A note edited in place by another program changes neither: it is found by the next full check.
 *
 * In a warm process (`warm`, the MCP server), a healthy watcher of the root (`watched`, what it
 * saw since the last search) stands in for the full check: the notes it names are checked like
 * those the journal names, and every note is checked only as a backstop every
 * `watchedRescanMs`. It stands in only once a full check has begun after it started watching, and
 * never after it lost events. Without a watcher (a network file system, whose other hosts' writes
 * no watcher here sees), every note is checked at most every `unwatchedRescanMs`.
 */
export function planRefresh(root: string, checkAll = false, warm?: ResidentIndex, watched?: Watched): RefreshPlan {
  const s = settings();
  const location = indexLocation(root);
  const startedAt = now();
  const old = readMarks(root);
  // Taken before anything is looked at: whatever changes afterwards shows next time.
  let journal = markJournal(location.dir);
  const rootNow = rootState(root);
  const full = (): RefreshPlan => {
    if (journal.size > JOURNAL_MAX_BYTES) {
      rotateJournal(location.dir);
      journal = markJournal(location.dir);
    }
    const scan = statNotes(root);
    // A note with another name outside the root is edited there unseen by the watcher: it is looked at on every search.
    warm?.watch?.watchHardLinks(scan.filter((st) => (st.nlink ?? 1) > 1).map((st) => st.path));
    const seen: ScanMarks = { version: MARKS_VERSION, root: rootNow, journal, scannedAt: startedAt, notes: scan.length };
    const digest = statesDigest(scan, startedAt);
    if (old && digest && old.digest === digest) {
      return { kind: 'unchanged', notes: scan.length, refreshedAt: old.refreshedAt, record: { ...old, ...seen } };
    }
    const manifest = currentManifest(root, warm);
    if (!manifest) return { kind: 'rebuild' };
    return { kind: 'delta', manifest, pending: comparedAll(scan, manifest.files, startedAt), seen, digest: { ifEmpty: digest, ifApplied: digest } };
  };
  const scanMs = s.indexScanSeconds() * 1000;
  const watching = Boolean(watched?.complete && old && old.scannedAt > watched.since);
  // However the index was placed (ZK_MEMORY_INDEX_DIR too), a corpus on a network file system is.
  const network = location.fileSystem !== null;
  const bound = warm ? Math.max(scanMs, watching ? warm.watchedRescanMs : warm.unwatchedRescanMs) : scanMs;
  const due = !old || startedAt < old.scannedAt || startedAt - old.scannedAt >= bound;
  if (checkAll || due || (watched && !watched.complete)) return full();
  if (!watching && (old.notes <= s.indexScanBelow() || (network && !warm))) return full();
  const written = journalSince(location.dir, old.journal, journal);
  if (!written) return full();
  if (watching) for (const name of watched!.names) written.add(name);
  // A watcher names every note added, removed or renamed: the folder's own metadata (which its
  // cookies move, src/adapters/note-watch.ts) says nothing more then.
  const sameRoot = watching || rootUnchanged(old.root, rootNow);
  if (sameRoot && written.size === 0) return { kind: 'unchanged', notes: old.notes, refreshedAt: old.refreshedAt };
  const manifest = currentManifest(root, warm);
  if (!manifest || manifest.id !== old.manifestId) return full();
  const listing = sameRoot ? undefined : listNoteFiles(root);
  // (A watcher would have named a note replaced under its own name.)
  if (!watching && listing && written.size === 0 && listing.length === manifest.files.size && listing.every((n) => manifest.files.has(n))) return full();
  const pending = comparedSome(root, manifest.files, written, listing, startedAt);
  const seen = { version: MARKS_VERSION, root: rootNow, journal, scannedAt: old.scannedAt, notes: pending.files };
  // Notes not looked at may have changed since the last full scan: once the index takes a change,
  // no digest describes what it holds until the next full scan.
  return { kind: 'delta', manifest, pending, seen, digest: { ifEmpty: old.digest, ifApplied: '' } };
}

/**
 * The manifest; a warm process keeps the one it last read or wrote, and reads the file again only
 * when it is no longer that one (another process refreshed the index).
 */
export function currentManifest(root: string, warm: ResidentIndex | undefined): KnownManifest | undefined {
  return warm ? warm.manifest.load(manifestId(root), () => readManifest(root)) : readManifest(root);
}

export function writeMarks(root: string, marks: Marks): void {
  writeIndexRecord(marksPath(root), marks);
}

/**
 * Marks for a look at the corpus, tied to the manifest as written (`id`: its file's identity) and
 * to the digest of the note states the index now holds ('' when none is known: the next full check
 * then reads the manifest).
 */
export function marksFor(seen: ScanMarks, manifest: Manifest, id: string | undefined, digest: string): Marks {
  return { ...seen, refreshedAt: manifest.refreshedAt, manifestId: id ?? '', digest };
}

export function deltaIsEmpty(d: IndexDelta): boolean {
  return d.upsert.size === 0 && d.restat.size === 0 && d.removed.length === 0;
}
