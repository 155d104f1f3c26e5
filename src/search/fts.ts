import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../errors.js';
import { sha256 } from '../corpus/files.js';
import { listNoteFiles, noteFromText, decodeNote, type Note } from '../corpus/notes.js';
import { round } from './hits.js';
import { COMPACT_AFTER_WRITES, compact, connectIndex, deletePaths, indexDir, lance, openTable, removeTableFiles, withIndexLock, writeIndexJson, type Table } from './lance.js';
import { lastUpdated, snippet } from './snippet.js';
import { coverage } from './rg.js';
import { queryWords, searchTerms, snippetTerms, stemsOf } from './terms.js';
import type { SearchHit, SearchOptions, SearchProvider } from './types.js';

const TABLE = 'notes';
const MANIFEST_VERSION = 2;
/** Re-index (and drop old table versions) once this many rows are not yet in the FTS index. */
const OPTIMIZE_AFTER_ROWS = 2000;

/** What the index knows of one note file, to tell cheaply whether it changed. */
export interface FileState {
  mtimeMs: number;
  size: number;
  /** The first 16 hex digits of the content's sha256: enough to tell a real change from a touch. */
  hash: string;
}

/** What the index knows of the corpus (on disk as compact rows, it is read before every query). */
interface Manifest {
  files: Map<string, FileState>;
  refreshes: number;
  builtAt: string;
  refreshedAt: string;
}

interface ManifestFile {
  version: number;
  files: [string, number, number, string][];
  refreshes: number;
  builtAt: string;
  refreshedAt: string;
}

export const contentHash = (buf: Buffer) => sha256(buf).slice(0, 16);

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
  upsert: Map<string, { note: Note; hash: string }>;
  restat: Map<string, FileState>;
  removed: string[];
  files: number;
}

function manifestPath(root: string): string {
  return path.join(indexDir(root), 'manifest.json');
}

function readManifest(root: string): Manifest | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(manifestPath(root), 'utf8')) as ManifestFile;
    if (m.version !== MANIFEST_VERSION || !Array.isArray(m.files)) return undefined;
    const files = new Map<string, FileState>();
    for (const [name, mtimeMs, size, hash] of m.files) files.set(name, { mtimeMs, size, hash });
    return { files, refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt };
  } catch {
    return undefined;
  }
}

function toRow(note: Note): Row {
  return {
    path: note.path, uuid: note.uuid, slug: note.slug, title: note.title, date: note.date,
    kind: note.kind ?? '', author: note.author ?? '', superseded_by: note.superseded_by ?? '',
    body: note.parsed.body, current: !note.superseded_by,
  };
}

/** Compare the note files with the manifest: only new or changed files are read. */
export function computeDelta(root: string, manifest: Manifest | undefined): IndexDelta {
  const known = manifest?.files ?? new Map<string, FileState>();
  const names = listNoteFiles(root);
  const delta: IndexDelta = { upsert: new Map(), restat: new Map(), removed: [], files: names.length };
  const seen = new Set<string>();
  for (const name of names) {
    seen.add(name);
    const file = path.join(root, name);
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      continue;
    }
    const prev = known.get(name);
    if (prev && prev.mtimeMs === st.mtimeMs && prev.size === st.size) continue;
    let buf: Buffer;
    try {
      buf = fs.readFileSync(file);
    } catch {
      continue;
    }
    const hash = contentHash(buf);
    if (prev && prev.hash === hash) {
      delta.restat.set(name, { mtimeMs: st.mtimeMs, size: st.size, hash });
      continue;
    }
    const text = decodeNote(buf, name);
    if (text === undefined) {
      if (prev) delta.removed.push(name);
      continue;
    }
    delta.upsert.set(name, { note: noteFromText(root, file, text, st.size, st.mtimeMs), hash });
  }
  for (const name of known.keys()) if (!seen.has(name)) delta.removed.push(name);
  return delta;
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
  fs.rmSync(manifestPath(root), { force: true });
  removeTableFiles(root, TABLE);
  fs.mkdirSync(indexDir(root), { recursive: true });
  const delta = computeDelta(root, undefined);
  const rows = [...delta.upsert.values()].map((u) => toRow(u.note));
  const db = await connectIndex(root);
  // An empty corpus still gets a table (with a schema taken from a placeholder row we delete).
  const seed = rows.length ? rows : [toRow(noteFromText(root, path.join(root, '.placeholder.md'), '# x\n', 0, 0))];
  const table = await db.createTable(TABLE, seed);
  if (!rows.length) await table.delete('true');
  await table.createIndex('title', { config: ldb.Index.fts(FTS_OPTIONS) });
  await table.createIndex('body', { config: ldb.Index.fts(FTS_OPTIONS) });
  const now = new Date().toISOString();
  const manifest: Manifest = {
    files: new Map([...delta.upsert].map(([name, u]) => [name, { mtimeMs: u.note.mtimeMs, size: u.note.size, hash: u.hash }])),
    refreshes: 0, builtAt: now, refreshedAt: now,
  };
  writeManifest(root, manifest);
  return { delta, manifest };
}

function writeManifest(root: string, m: Manifest): void {
  const out: ManifestFile = {
    version: MANIFEST_VERSION, refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt,
    files: [...m.files].map(([name, f]) => [name, f.mtimeMs, f.size, f.hash]),
  };
  writeIndexJson(manifestPath(root), out);
}

/** Apply a delta to the table and the manifest (under the index lock). */
async function applyDelta(root: string, table: Table, manifest: Manifest, delta: IndexDelta): Promise<void> {
  const gone = [...delta.upsert.keys(), ...delta.removed];
  await deletePaths(table, gone);
  const rows = [...delta.upsert.values()].map((u) => toRow(u.note));
  if (rows.length) await table.add(rows);
  for (const name of delta.removed) manifest.files.delete(name);
  for (const [name, u] of delta.upsert) manifest.files.set(name, { mtimeMs: u.note.mtimeMs, size: u.note.size, hash: u.hash });
  for (const [name, f] of delta.restat) manifest.files.set(name, f);
  manifest.refreshes += gone.length || rows.length ? 1 : 0;
  manifest.refreshedAt = new Date().toISOString();
  if (manifest.refreshes >= COMPACT_AFTER_WRITES || (await unindexedRows(table)) >= OPTIMIZE_AFTER_ROWS) {
    await compact(table);
    manifest.refreshes = 0;
  }
  writeManifest(root, manifest);
}

async function unindexedRows(table: Table): Promise<number> {
  const stats = await table.indexStats('body_idx');
  return stats?.numUnindexedRows ?? 0;
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
}

async function rebuilt(root: string): Promise<IndexSync> {
  const { delta, manifest } = await rebuild(root);
  return { report: { rebuilt: true, added: delta.upsert.size, changed: 0, removed: 0, notes: delta.files }, files: manifest.files };
}

/**
 * Bring the full-text index and its manifest up to date with the files: nothing is written when
 * nothing changed; otherwise only the changed notes are touched, under the index lock (never the
 * corpus lock: writers do not wait on an index build). The change scan starts after the call does,
 * so every change finished before it is in the index it leaves. A missing or
 * unreadable index is rebuilt from scratch. The manifest it leaves is the one change scan other
 * derived tables (the note vectors) are brought up to date from.
 */
export async function syncIndex(root: string, opts: { rebuild?: boolean } = {}): Promise<IndexSync> {
  // The common case, nothing changed, is answered without taking the lock.
  const seen = opts.rebuild ? undefined : readManifest(root);
  const seenDelta = seen && computeDelta(root, seen);
  if (seen && seenDelta && deltaIsEmpty(seenDelta)) {
    return { report: { rebuilt: false, added: 0, changed: 0, removed: 0, notes: seenDelta.files }, files: seen.files };
  }
  return withIndexLock(root, async () => {
    const manifest = opts.rebuild ? undefined : readManifest(root);
    let table: Table | undefined;
    try {
      table = manifest ? await openTable(root, TABLE) : undefined;
    } catch {
      table = undefined;
    }
    if (!manifest || !table) return rebuilt(root);
    // Unless another process refreshed meanwhile, the change set found before locking still holds.
    const delta = seenDelta && seen?.refreshedAt === manifest.refreshedAt ? seenDelta : computeDelta(root, manifest);
    const changed = [...delta.upsert.keys()].filter((n) => manifest.files.has(n)).length;
    try {
      await applyDelta(root, table, manifest, delta);
    } catch {
      // A table that cannot take the change is rebuilt rather than left half-updated.
      return rebuilt(root);
    }
    const report = { rebuilt: false, added: delta.upsert.size - changed, changed, removed: delta.removed.length, notes: delta.files };
    return { report, files: manifest.files };
  });
}

/** Bring the full-text index up to date with the files (see `syncIndex`). */
export async function refreshIndex(root: string, opts: { rebuild?: boolean } = {}): Promise<RefreshReport> {
  return (await syncIndex(root, opts)).report;
}

export interface IndexFreshness {
  exists: boolean;
  fresh: boolean;
  pending: number;
  notes: number;
  refreshedAt: string | null;
}

/**
 * How fresh the index is, and the content hash of every note file on disk now (known only when
 * the index exists), found with the index's change scan and without changing anything.
 */
export function scanIndex(root: string): { freshness: IndexFreshness; hashes?: Map<string, string> } {
  const manifest = readManifest(root);
  if (!manifest) return { freshness: { exists: false, fresh: false, pending: 0, notes: listNoteFiles(root).length, refreshedAt: null } };
  const d = computeDelta(root, manifest);
  const pending = d.upsert.size + d.removed.length;
  const hashes = new Map([...manifest.files].map(([name, f]) => [name, f.hash]));
  for (const name of d.removed) hashes.delete(name);
  for (const [name, u] of d.upsert) hashes.set(name, u.hash);
  return { freshness: { exists: true, fresh: pending === 0, pending, notes: d.files, refreshedAt: manifest.refreshedAt }, hashes };
}

async function query(root: string, q: string, limit: number, history: boolean): Promise<Row[]> {
  const ldb = await lance();
  const table = await openTable(root, TABLE);
  if (!table) throw new ZkError('io', 'search index has no notes table');
  let builder = table.query().fullTextSearch(new ldb.MultiMatchQuery(q, ['title', 'body'], { boosts: [2, 1] }));
  if (!history) builder = builder.where('current = true');
  return (await builder.limit(limit).toArray()) as unknown as (Row & { _score: number })[];
}

/** How many of the index's best matches are re-ranked by how much of the query they cover. */
const RERANK_DEPTH = 40;

/**
 * The index's BM25 scores scaled by the share of the query's terms each note contains, as the rg
 * backend scores (see `coverage`): one word repeated does not outrank a note that has them all.
 */
function byCoverage<R extends Row & { _score?: number }>(rows: R[], terms: string[], minShare = 0): R[] {
  if (terms.length < 2) return rows;
  const scored = rows.flatMap((r) => {
    const words = new Set(stemsOf(`${r.title}\n${r.body}`));
    const share = terms.filter((t) => words.has(t)).length / terms.length;
    return share < minShare ? [] : [{ r, score: (r._score ?? 0) * coverage(share) }];
  });
  return scored.sort((a, b) => b.score - a.score).map(({ r, score }) => ({ ...r, _score: score }));
}

/**
 * BM25 hits from the full-text index as it stands (refresh it first). A table that cannot be
 * queried is rebuilt once.
 */
export async function ftsHits(root: string, q: string, opts: SearchOptions & { limit: number }): Promise<SearchHit[]> {
  const words = queryWords(q);
  if (!words.length) return [];
  const text = words.join(' ');
  const history = Boolean(opts.history);
  const depth = Math.max(opts.limit + 5, RERANK_DEPTH);
  let rows: (Row & { _score?: number })[];
  try {
    rows = await query(root, text, depth, history);
  } catch {
    await refreshIndex(root, { rebuild: true });
    rows = await query(root, text, depth, history);
  }
  rows = byCoverage(rows, searchTerms(q), opts.minShare);
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
    await refreshIndex(root);
    return ftsHits(root, q, opts);
  },
};
