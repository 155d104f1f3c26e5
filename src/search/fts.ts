import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { current, now, settings } from '../context.js';
import { ZkError } from '../errors.js';
import { sameStamp, stampOf, stampTrusted, type FileStamp } from '../corpus/file-stamp.js';
import { sha256 } from '../corpus/files.js';
import { isNoteFile, listNoteFiles } from '../corpus/note-files.js';
import type { Note } from '../corpus/notes.js';
import {
  COMPACT_AFTER_WRITES, OPTIMIZE_AFTER_ROWS, compact, connectIndex, deletePaths, fileIdentity, identityOf, indexDir, lance, openTable, removeTableFiles,
  unindexedRows, withIndexLock, writeIndexJson, type Table,
} from './lance.js';
import { lastUpdated, snippet } from './snippet.js';
import { coverage, passesFloor, round, titleTerms, type TermRarity } from './score.js';
import { JOURNAL_MAX_BYTES, journalMark, journalPath, journalSince, rotateJournal, type JournalMark } from './journal.js';
import { indexLocation } from './location.js';
import type { FileState, KnownManifest, Manifest } from './manifest.js';
import { callWarmIndex, settle, type Watched, type WarmIndex } from './warm.js';
import { queryWords, searchTerms, snippetTerms, stem, stemsOf } from './terms.js';
import type { SearchHit, SearchOptions, SearchProvider } from './types.js';

const TABLE = 'notes';
const MANIFEST_VERSION = 3;

interface ManifestFile {
  version: number;
  /** name, mtime, size, hash, ctime, inode, unsure (1) or not (0). */
  files: [string, number, number, string, number, number, number][];
  refreshes: number;
  builtAt: string;
  refreshedAt: string;
}

/** The first 16 hex digits of the content's sha256 (see FileState.hash). */
export const contentHash = (buf: Buffer) => sha256(buf).slice(0, 16);

/** The note parser (it loads a YAML parser): loaded only when a note must be read. */
type NoteParser = typeof import('../corpus/notes.js');
const noteParser = (): Promise<NoteParser> => import('../corpus/notes.js');

type Row = {
  path: string;
  uuid: string;
  slug: string;
  title: string;
  date: string;
  kind: string;
  author: string;
  superseded_by: string;
  body: string;
  current: boolean;
};

/** The change set between the files on disk and the manifest. */
export interface IndexDelta {
  upsert: Map<string, { note: Note; state: FileState }>;
  restat: Map<string, FileState>;
  removed: string[];
  files: number;
}

function manifestPath(root: string): string {
  return path.join(indexDir(root), 'manifest.json');
}

/** The manifest file's identity: marks that name another describe an older manifest and are not trusted. */
function manifestId(root: string): string | undefined {
  return fileIdentity(manifestPath(root));
}


/** The manifest and the identity of the very file it was read from. */
function readManifest(root: string): KnownManifest | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(manifestPath(root), 'r');
    const id = identityOf(fs.fstatSync(fd));
    const m = JSON.parse(fs.readFileSync(fd, 'utf8')) as ManifestFile;
    if (m.version !== MANIFEST_VERSION || !Array.isArray(m.files)) return undefined;
    const files = new Map<string, FileState>();
    for (const [name, mtimeMs, size, hash, ctimeMs, ino, unsure] of m.files) files.set(name, { mtimeMs, size, hash, ctimeMs, ino, unsure: unsure !== 0 });
    return { files, refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt, id };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The manifest; a warm process keeps the one it last read or wrote, and reads the file again only
 * when it is no longer that one (another process refreshed the index).
 */
function loadManifest(root: string, warm: WarmIndex | undefined): KnownManifest | undefined {
  return warm ? warm.manifest.load(manifestId(root), () => readManifest(root)) : readManifest(root);
}

function toRow(note: Note): Row {
  return {
    path: note.path, uuid: note.uuid, slug: note.slug, title: note.title, date: note.date,
    kind: note.kind ?? '', author: note.author ?? '', superseded_by: note.superseded_by ?? '',
    body: note.parsed.body, current: !note.superseded_by,
  };
}

/** A note file as one stat shows it. */
export interface Stat extends FileStamp {
  name: string;
}

/** Stat one note file; undefined when it is gone. */
function statNote(root: string, name: string): Stat | undefined {
  // A name from the listing holds no separator: joined plainly, as path.join costs a normalisation per note.
  const st = fs.statSync(`${root}${path.sep}${name}`, { throwIfNoEntry: false });
  return st && { name, ...stampOf(st) };
}

/** Stat every note file of the root, in name order (a file gone meanwhile is left out). */
function statNotes(root: string): Stat[] {
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
function statesDigest(states: Iterable<Stat>, seenAt: number): string {
  const hash = crypto.createHash('sha256');
  let chunk = '';
  for (const s of states) {
    if (!stampTrusted(s, seenAt)) return '';
    chunk += `${s.name}\0${s.mtimeMs}\0${s.ctimeMs}\0${s.ino}\0${s.size}\n`;
    if (chunk.length > 65536) {
      hash.update(chunk);
      chunk = '';
    }
  }
  return hash.update(chunk).digest('hex').slice(0, 32);
}

/**
 * What a stat-level comparison with the manifest found: the notes to read (new, their stamp moved,
 * or not vouched for by it) and the notes gone, stated at `seenAt`. Reading them needs the note
 * parser, loaded only then.
 */
interface Pending {
  read: Stat[];
  removed: string[];
  files: number;
  seenAt: number;
}

/** Whether a note file must be read: unknown to the manifest, its stamp moved, or unsure. */
const moved = (st: Stat, prev: FileState | undefined) => !prev || prev.unsure || !sameStamp(prev, st);

/** Compare every note file's stat, taken at `seenAt`, with the manifest. */
function comparedAll(scan: readonly Stat[], known: ReadonlyMap<string, FileState>, seenAt: number): Pending {
  const seen = new Set(scan.map((s) => s.name));
  return {
    read: scan.filter((st) => moved(st, known.get(st.name))),
    removed: [...known.keys()].filter((name) => !seen.has(name)),
    files: scan.length,
    seenAt,
  };
}

/** What the index records of a note file read after the stat `st` taken at `seenAt`. */
function stateOf(st: Stat, hash: string, seenAt: number): FileState {
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, size: st.size, hash, unsure: !stampTrusted(st, seenAt) };
}

const sameState = (a: FileState, b: FileState) => sameStamp(a, b) && a.hash === b.hash && a.unsure === b.unsure;

/** Read the pending notes: a file whose content hash is unchanged only has its stat recorded. */
function readPending(root: string, pending: Pending, known: ReadonlyMap<string, FileState>, parser: NoteParser): IndexDelta {
  const delta: IndexDelta = { upsert: new Map(), restat: new Map(), removed: [...pending.removed], files: pending.files };
  for (const st of pending.read) {
    const prev = known.get(st.name);
    const file = path.join(root, st.name);
    let buf: Buffer;
    try {
      buf = fs.readFileSync(file);
    } catch {
      if (prev) delta.removed.push(st.name);
      continue;
    }
    const state = stateOf(st, contentHash(buf), pending.seenAt);
    if (prev && prev.hash === state.hash) {
      if (!sameState(prev, state)) delta.restat.set(st.name, state);
      continue;
    }
    const text = parser.decodeNote(buf, st.name);
    if (text === undefined) {
      if (prev) delta.removed.push(st.name);
      continue;
    }
    delta.upsert.set(st.name, { note: parser.noteFromText(root, file, text, st.size, st.mtimeMs), state });
  }
  return delta;
}

/** Read what a stat comparison found pending, loading the note parser only if a note must be read. */
async function resolvePending(root: string, pending: Pending, known: ReadonlyMap<string, FileState>): Promise<IndexDelta> {
  if (!pending.read.length) return { upsert: new Map(), restat: new Map(), removed: [...pending.removed], files: pending.files };
  return readPending(root, pending, known, await noteParser());
}

/** Compare every note file of `scan` with what the index knows (`known`): only new or changed files are read. */
function computeDelta(root: string, scan: readonly Stat[], known: ReadonlyMap<string, FileState>, seenAt: number, parser: NoteParser): IndexDelta {
  return readPending(root, comparedAll(scan, known, seenAt), known, parser);
}

/**
 * Compare only the notes that can have changed: those the change journal names, and, when the
 * root folder's entries changed (`listing` given), the names added and removed.
 */
function comparedSome(root: string, known: ReadonlyMap<string, FileState>, journal: Set<string>, listing: string[] | undefined, seenAt: number): Pending {
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
    if (moved(st, known.get(name))) pending.read.push(st);
  }
  if (!present) pending.files = known.size + pending.read.filter((st) => !known.has(st.name)).length - pending.removed.length;
  return pending;
}

/**
 * What the index last saw of the corpus, to tell cheaply whether anything changed since: the root
 * folder's own metadata (any note added, removed or renamed changes it), how far the change
 * journal had been read, and when every note file was last checked. Kept in a small file of its
 * own so that a search on an unchanged corpus reads neither the manifest nor any note.
 */
interface Marks {
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

const MARKS_VERSION = 2;

/** What one look at the corpus found, before it is tied to a manifest. */
type Seen = Omit<Marks, 'refreshedAt' | 'manifestId' | 'digest'>;

/**
 * A folder changed this close (ms) before it was looked at may change again within the same
 * timestamp tick (coarse on some file systems) without its metadata showing it: not trusted.
 */
const RACY_MS = 2000;

function marksPath(root: string): string {
  return path.join(indexDir(root), 'marks.json');
}

/** The marks, when they describe the manifest on disk (marks written for another describe nothing now). */
function readMarks(root: string): Marks | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(marksPath(root), 'utf8')) as Marks;
    return m.version === MARKS_VERSION && m.manifestId === manifestId(root) ? m : undefined;
  } catch {
    return undefined;
  }
}

function rootState(root: string): Marks['root'] {
  const seenAt = now();
  const st = fs.statSync(root);
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, seenAt };
}

function rootUnchanged(before: Marks['root'], now: Marks['root']): boolean {
  const racy = before.seenAt - Math.max(before.mtimeMs, before.ctimeMs) < RACY_MS;
  return !racy && before.mtimeMs === now.mtimeMs && before.ctimeMs === now.ctimeMs && before.ino === now.ino;
}

/** The journal's mark, creating it empty first so that the tool's first write does not force a full scan. */
function markJournal(dir: string): JournalMark {
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
type Plan =
  /** Nothing changed; `record`, when given, is the look to record in the marks. */
  | { kind: 'unchanged'; notes: number; refreshedAt: string; record?: Marks }
  /**
   * `digest`: what the marks may record once the index holds `pending` — the digest of the full
   * scan that found it, the old digest after a partial check that found nothing, else none.
   */
  | { kind: 'delta'; manifest: KnownManifest; pending: Pending; seen: Seen; digest: { ifEmpty: string; ifApplied: string } }
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
function planRefresh(root: string, checkAll = false, warm?: WarmIndex, watched?: Watched): Plan {
  const s = settings();
  const location = indexLocation(root);
  const startedAt = now();
  const old = readMarks(root);
  // Taken before anything is looked at: whatever changes afterwards shows next time.
  let journal = markJournal(location.dir);
  const rootNow = rootState(root);
  const full = (): Plan => {
    if (journal.size > JOURNAL_MAX_BYTES) {
      rotateJournal(location.dir);
      journal = markJournal(location.dir);
    }
    const scan = statNotes(root);
    const seen: Seen = { version: MARKS_VERSION, root: rootNow, journal, scannedAt: startedAt, notes: scan.length };
    const digest = statesDigest(scan, startedAt);
    if (old && digest && old.digest === digest) {
      return { kind: 'unchanged', notes: scan.length, refreshedAt: old.refreshedAt, record: { ...old, ...seen } };
    }
    const manifest = loadManifest(root, warm);
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
  const sameRoot = rootUnchanged(old.root, rootNow);
  if (sameRoot && written.size === 0) return { kind: 'unchanged', notes: old.notes, refreshedAt: old.refreshedAt };
  const manifest = loadManifest(root, warm);
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

function writeMarks(root: string, marks: Marks): void {
  writeIndexJson(marksPath(root), marks);
}

/**
 * Marks for a look at the corpus, tied to the manifest as written (`id`: its file's identity) and
 * to the digest of the note states the index now holds ('' when none is known: the next full check
 * then reads the manifest).
 */
function marksFor(seen: Seen, manifest: Manifest, id: string | undefined, digest: string): Marks {
  return { ...seen, refreshedAt: manifest.refreshedAt, manifestId: id ?? '', digest };
}

function deltaIsEmpty(d: IndexDelta): boolean {
  return d.upsert.size === 0 && d.restat.size === 0 && d.removed.length === 0;
}

const FTS_OPTIONS = { stem: true, language: 'English', removeStopWords: true, lowercase: true, asciiFolding: true, withPosition: false };

/**
 * Build the full-text table from nothing: every note read once, one table, FTS indexes on title and
 * body. Other tables of the database (the note vectors) are left alone.
 */
async function rebuild(root: string): Promise<{ delta: IndexDelta; manifest: Manifest }> {
  const ldb = await lance();
  const parser = await noteParser();
  fs.rmSync(manifestPath(root), { force: true });
  fs.rmSync(marksPath(root), { force: true });
  removeTableFiles(root, TABLE);
  fs.mkdirSync(indexDir(root), { recursive: true });
  rotateJournal(indexDir(root));
  const startedAt = now();
  const journal = markJournal(indexDir(root));
  const rootNow = rootState(root);
  const scan = statNotes(root);
  const delta = computeDelta(root, scan, new Map(), startedAt, parser);
  const rows = [...delta.upsert.values()].map((u) => toRow(u.note));
  const db = await connectIndex(root);
  // An empty corpus still gets a table (with a schema taken from a placeholder row we delete).
  const seed = rows.length ? rows : [toRow(parser.noteFromText(root, path.join(root, '.placeholder.md'), '# x\n', 0, 0))];
  const table = await db.createTable(TABLE, seed);
  if (!rows.length) await table.delete('true');
  await table.createIndex('title', { config: ldb.Index.fts(FTS_OPTIONS) });
  await table.createIndex('body', { config: ldb.Index.fts(FTS_OPTIONS) });
  const builtAt = new Date().toISOString();
  const manifest: Manifest = {
    files: new Map([...delta.upsert].map(([name, u]) => [name, u.state])),
    refreshes: 0, builtAt, refreshedAt: builtAt,
  };
  const id = writeManifest(root, manifest);
  writeMarks(root, marksFor({ version: MARKS_VERSION, root: rootNow, journal, scannedAt: startedAt, notes: delta.files }, manifest, id, statesDigest(scan, startedAt)));
  return { delta, manifest };
}

/** Write the manifest (under the index lock); returns the written file's identity. */
function writeManifest(root: string, m: Manifest): string | undefined {
  const out: ManifestFile = {
    version: MANIFEST_VERSION, refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt,
    files: [...m.files].map(([name, f]) => [name, f.mtimeMs, f.size, f.hash, f.ctimeMs, f.ino, f.unsure ? 1 : 0]),
  };
  writeIndexJson(manifestPath(root), out);
  return manifestId(root);
}

/** Apply a delta to the table and the manifest (under the index lock); returns the manifest's identity. */
async function applyDelta(root: string, table: Table, manifest: Manifest, delta: IndexDelta): Promise<string | undefined> {
  const gone = [...delta.upsert.keys(), ...delta.removed];
  await deletePaths(table, gone);
  const rows = [...delta.upsert.values()].map((u) => toRow(u.note));
  if (rows.length) await table.add(rows);
  for (const name of delta.removed) manifest.files.delete(name);
  for (const [name, u] of delta.upsert) manifest.files.set(name, u.state);
  for (const [name, f] of delta.restat) manifest.files.set(name, f);
  manifest.refreshes += gone.length || rows.length ? 1 : 0;
  manifest.refreshedAt = new Date().toISOString();
  if (manifest.refreshes >= COMPACT_AFTER_WRITES || (await unindexedRows(table, 'body_idx')) >= OPTIMIZE_AFTER_ROWS) {
    await compact(table);
    manifest.refreshes = 0;
  }
  return writeManifest(root, manifest);
}


export interface RefreshReport {
  rebuilt: boolean;
  added: number;
  changed: number;
  removed: number;
  notes: number;
}

/** The refresh's report and what the index now knows of every note file (name → state). */
export interface IndexSync {
  report: RefreshReport;
  files: ReadonlyMap<string, FileState>;
  /** The manifest's `refreshedAt` the index now stands at: which table version to query. */
  refreshedAt: string;
}

async function rebuilt(root: string): Promise<IndexSync> {
  const { delta, manifest } = await rebuild(root);
  return { report: { rebuilt: true, added: delta.upsert.size, changed: 0, removed: 0, notes: delta.files }, files: manifest.files, refreshedAt: manifest.refreshedAt };
}

/**
 * Bring the full-text index and its manifest up to date with the files: nothing is written when
 * nothing changed; otherwise only the changed notes are touched, under the index lock (never the
 * corpus lock: writers do not wait on an index build). What changed is found as `planRefresh`
 * says (with `checkAll`, by checking every note file); its marks are taken after the call starts,
 * so every change it can see that finished before is in the index it leaves. A missing or
 * unreadable index is rebuilt from scratch. The manifest it leaves is the one change scan other
 * derived tables (the note vectors) are brought up to date from.
 */
export async function syncIndex(root: string, opts: { rebuild?: boolean; checkAll?: boolean } = {}): Promise<IndexSync> {
  const warm = callWarmIndex();
  if (!warm) return sync(root, opts);
  return warm.serial(async () => {
    if (!warm.watch) return sync(root, opts, warm);
    await settle();
    const watched = warm.watch.take();
    try {
      return await sync(root, opts, warm, watched);
    } catch (err) {
      warm.watch.giveBack(watched); // the next search checks these notes again
      throw err;
    }
  });
}

async function sync(root: string, opts: { rebuild?: boolean; checkAll?: boolean }, warm?: WarmIndex, watched?: Watched): Promise<IndexSync> {
  const plan = () => planRefresh(root, Boolean(opts.checkAll), warm, watched);
  // The common case, nothing changed, is answered without taking the lock (nor loading the parser).
  const seen = opts.rebuild ? undefined : plan();
  if (seen?.kind === 'unchanged') {
    // Recording the look spares the next search the same check (see `planRefresh`).
    if (seen.record) writeMarks(root, seen.record);
    return unchanged(root, seen.notes, seen.refreshedAt, warm);
  }
  const found = seen?.kind === 'delta' ? await resolvePending(root, seen.pending, seen.manifest.files) : undefined;
  if (seen?.kind === 'delta' && found && deltaIsEmpty(found)) {
    // These marks describe the manifest read, so a refresh meanwhile only makes the next search check again.
    writeMarks(root, marksFor(seen.seen, seen.manifest, seen.manifest.id, seen.digest.ifEmpty));
    return { report: { rebuilt: false, added: 0, changed: 0, removed: 0, notes: found.files }, files: seen.manifest.files, refreshedAt: seen.manifest.refreshedAt };
  }
  return withIndexLock(root, async () => {
    // The manifest read before locking is the one on disk unless another process refreshed meanwhile.
    const onDisk = opts.rebuild ? undefined : manifestId(root);
    const manifest = onDisk === undefined ? undefined : seen?.kind === 'delta' && seen.manifest.id === onDisk ? seen.manifest : loadManifest(root, warm);
    let table: Table | undefined;
    try {
      table = manifest ? await openTable(root, TABLE) : undefined;
    } catch {
      table = undefined;
    }
    if (!manifest || !table) return rebuilt(root);
    // Unless another process refreshed meanwhile, the change set found before locking still holds.
    const planned = seen?.kind === 'delta' && seen.manifest.id === manifest.id ? seen : plan();
    if (planned.kind === 'unchanged') return unchanged(root, planned.notes, planned.refreshedAt, warm);
    if (planned.kind !== 'delta') return rebuilt(root);
    const delta = planned === seen && found ? found : await resolvePending(root, planned.pending, manifest.files);
    const changed = [...delta.upsert.keys()].filter((n) => manifest.files.has(n)).length;
    let id: string | undefined;
    try {
      id = await applyDelta(root, table, manifest, delta);
    } catch {
      // A table that cannot take the change is rebuilt rather than left half-updated.
      warm?.manifest.keep(undefined, undefined);
      return rebuilt(root);
    }
    // The manifest just written, as a warm process reads it next.
    warm?.manifest.keep(id, id === undefined ? undefined : Object.assign(manifest, { id }));
    writeMarks(root, marksFor(planned.seen, manifest, id, planned.digest.ifApplied));
    // The table just written is the one this refresh describes: a warm process queries it next.
    warm?.tables.set(indexDir(root), TABLE, manifest.refreshedAt, table);
    const report = { rebuilt: false, added: delta.upsert.size - changed, changed, removed: delta.removed.length, notes: delta.files };
    return { report, files: manifest.files, refreshedAt: manifest.refreshedAt };
  });
}

/** Nothing changed: the note states are read from the manifest only if someone asks for them. */
function unchanged(root: string, notes: number, refreshedAt: string, warm: WarmIndex | undefined): IndexSync {
  let files: ReadonlyMap<string, FileState> | undefined;
  return {
    report: { rebuilt: false, added: 0, changed: 0, removed: 0, notes }, refreshedAt,
    get files() {
      return (files ??= loadManifest(root, warm)?.files ?? new Map());
    },
  };
}

export interface IndexFreshness {
  exists: boolean;
  fresh: boolean;
  pending: number;
  notes: number;
  refreshedAt: string | null;
}

/** The notes' stats in name order, and when they were taken. */
export interface StatedNotes {
  stats: readonly Stat[];
  seenAt: number;
}

/**
 * How fresh the index is, and the content hash of every note file on disk now (known only when
 * the index exists), found with the index's change scan and without changing anything.
 */
export async function scanIndex(root: string, listed?: StatedNotes): Promise<{ freshness: IndexFreshness; hashes?: () => Map<string, string> }> {
  // Every note as the index last recorded it (see `planRefresh`): fresh, and the manifest is read
  // only if the hashes are asked for. `listed`: the notes' stats in name order, when the caller
  // has just taken them (a note it could not read is missing there: the digests then differ, and
  // the manifest is compared note by note).
  const seenAt = listed?.seenAt ?? now();
  const scan = listed?.stats ?? statNotes(root);
  const marks = readMarks(root);
  if (marks?.digest && statesDigest(scan, seenAt) === marks.digest) {
    const hashes = () => new Map([...(readManifest(root)?.files ?? [])].map(([name, f]) => [name, f.hash]));
    return { freshness: { exists: true, fresh: true, pending: 0, notes: scan.length, refreshedAt: marks.refreshedAt }, hashes };
  }
  const manifest = readManifest(root);
  if (!manifest) return { freshness: { exists: false, fresh: false, pending: 0, notes: scan.length, refreshedAt: null } };
  const d = computeDelta(root, scan, manifest.files, seenAt, await noteParser());
  const pending = d.upsert.size + d.removed.length;
  const hashes = new Map([...manifest.files].map(([name, f]) => [name, f.hash]));
  for (const name of d.removed) hashes.delete(name);
  for (const [name, u] of d.upsert) hashes.set(name, u.state.hash);
  return { freshness: { exists: true, fresh: pending === 0, pending, notes: d.files, refreshedAt: manifest.refreshedAt }, hashes: () => hashes };
}

/**
 * The notes table at `refreshedAt`: in a warm process the one kept open since the index was last
 * refreshed, else opened now.
 */
async function notesTable(root: string, refreshedAt: string | undefined): Promise<Table | undefined> {
  const warm = callWarmIndex();
  if (!warm || refreshedAt === undefined) return openTable(root, TABLE);
  const dir = indexDir(root);
  const open = warm.tables.get(dir, TABLE, refreshedAt);
  if (open) return open;
  const table = await openTable(root, TABLE);
  if (table) warm.tables.set(dir, TABLE, refreshedAt, table);
  return table;
}

async function query(root: string, q: string, limit: number, history: boolean, refreshedAt?: string): Promise<Row[]> {
  const ldb = await lance();
  const table = await notesTable(root, refreshedAt);
  if (!table) throw new ZkError('io', 'search index has no notes table');
  let builder = table.query().fullTextSearch(new ldb.MultiMatchQuery(q, ['title', 'body'], { boosts: [2, 1] }));
  if (!history) builder = builder.where('current = true');
  return (await builder.limit(limit).toArray()) as unknown as (Row & { _score: number })[];
}

/** How many of the index's best matches are re-ranked by how much of the query they cover. */
const RERANK_DEPTH = 40;

/**
 * What the relevance floor `o` needs to know of the query's terms (`words`: a query word per
 * stem): for each word of the query's title, how many indexed notes hold it in title or body,
 * counted through the full-text index up to one past the floor's bound (a few rows per word).
 */
async function termRarity(root: string, stems: string[], words: Map<string, string>, o: SearchOptions, refreshedAt?: string): Promise<TermRarity> {
  const titled = titleTerms(stems, o);
  if (!o.rareTitleWord || !titled.some(Boolean)) return { notes: 0, stems, titled, df: stems.map(() => 0) };
  const ldb = await lance();
  const table = await notesTable(root, refreshedAt);
  if (!table) throw new ZkError('io', 'search index has no notes table');
  const notes = await table.countRows();
  const upTo = Math.max(1, Math.min(notes, o.rareTitleWord.notes(notes) + 1));
  const holding = async (word: string) => (await table.query().fullTextSearch(new ldb.MultiMatchQuery(word, ['title', 'body'])).select(['_score']).limit(upTo).toArray()).length;
  return { notes, stems, titled, df: await Promise.all(stems.map((t, i) => (titled[i] ? holding(words.get(t) ?? t) : 0))) };
}

/**
 * The index's BM25 scores scaled by the share of the query's terms each note contains, as the rg
 * backend scores (see `coverage`): one word repeated does not outrank a note that has them all.
 * With `rarity`, a note below the relevance floor `o` is dropped (see `passesFloor`).
 */
function byCoverage<R extends Row & { _score?: number }>(rows: R[], terms: string[], o: SearchOptions, rarity?: TermRarity): R[] {
  if (terms.length < 2) return rows;
  const scored = rows.flatMap((r) => {
    const words = new Set(stemsOf(`${r.title}\n${r.body}`));
    const has = (i: number) => words.has(terms[i]);
    if (rarity && !passesFloor(o, rarity, has, () => r.title)) return [];
    return [{ r, score: (r._score ?? 0) * coverage(terms.filter((t) => words.has(t)).length / terms.length) }];
  });
  return scored.sort((a, b) => b.score - a.score).map(({ r, score }) => ({ ...r, _score: score }));
}

/**
 * BM25 hits from the full-text index as it stands (refresh it first; `refreshedAt`, from that
 * refresh, lets a warm process query the table it keeps open). A table that cannot be queried is
 * rebuilt once.
 */
export async function ftsHits(root: string, q: string, opts: SearchOptions & { limit: number }, refreshedAt?: string): Promise<SearchHit[]> {
  const words = queryWords(q);
  if (!words.length) return [];
  const text = words.join(' ');
  const history = Boolean(opts.history);
  const depth = Math.max(opts.limit + 5, RERANK_DEPTH);
  let rows: (Row & { _score?: number })[];
  try {
    rows = await query(root, text, depth, history, refreshedAt);
  } catch {
    const rebuilt = await syncIndex(root, { rebuild: true });
    rows = await query(root, text, depth, history, rebuilt.refreshedAt);
  }
  const stems = searchTerms(q);
  const rarity = opts.minShare ? await termRarity(root, stems, new Map(words.map((w) => [stem(w), w])), opts, refreshedAt) : undefined;
  rows = byCoverage(rows, stems, opts, rarity);
  const terms = snippetTerms(q);
  const hits: SearchHit[] = [];
  for (const r of rows) {
    if (hits.length >= opts.limit) break;
    if (!fs.existsSync(path.join(root, r.path))) continue; // deleted since the refresh
    hits.push({
      uuid: r.uuid, slug: r.slug, path: r.path, title: r.title, date: r.date,
      kind: (r.kind || null) as SearchHit['kind'], author: r.author || null, superseded_by: r.superseded_by || null,
      score: round(r._score ?? 0), snippet: snippet(r.body, terms), updated: lastUpdated(r.body, r.date),
    });
  }
  return hits;
}

/** LanceDB BM25 full-text search over title and body, refreshed incrementally before each query. */
export const ftsProvider: SearchProvider = {
  name: 'fts',
  async search(root, q, opts): Promise<SearchHit[]> {
    if (!queryWords(q).length) return [];
    const { refreshedAt } = await syncIndex(root);
    return ftsHits(root, q, opts, refreshedAt);
  },
};
