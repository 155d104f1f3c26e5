import fs from 'node:fs';
import path from 'node:path';
import type { Note } from '../corpus/note/notes.js';
import {
  carryMarks,
  computeDelta,
  deltaIsEmpty,
  currentManifest,
  markJournal,
  marksFor,
  marksPath,
  MARKS_VERSION,
  noteParser,
  planRefresh,
  resolvePending,
  rootState,
  statesDigest,
  statNotes,
  writeMarks,
  type IndexDelta,
} from './changes.js';
import {
  COMPACT_AFTER_WRITES,
  OPTIMIZE_AFTER_ROWS,
  compact,
  connectIndex,
  deletePaths,
  indexDir,
  indexScalars,
  lance,
  openTable,
  removeTableFiles,
  unindexedRows,
  withIndexLock,
  type Table,
} from './lance.js';
import { rotateJournal } from './journal.js';
import { addNames, namesComplete, startNames } from '../corpus/files/name-index.js';
import { nameEntries } from './title-key.js';
import { FileStates } from './file-states.js';
import {
  manifestId,
  manifestLogPath,
  manifestPath,
  recordManifestChange,
  writeManifest,
  type FileState,
  type KnownManifest,
  type Manifest,
} from './manifest.js';
import { now } from '../context.js';
import { residentIndex, versionStamp, type ResidentIndex } from './resident-index.js';
import type { Watched } from '../ports.js';

// The full-text table's upkeep: built from nothing, or brought up to date with what changed
// (src/search/changes.ts), under the index lock, never the corpus lock.

export const TABLE = 'notes';

export type FtsRow = {
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

function toRow(note: Note): FtsRow {
  return {
    path: note.path,
    uuid: note.uuid,
    slug: note.slug,
    title: note.title,
    date: note.date,
    kind: note.kind ?? '',
    author: note.author ?? '',
    superseded_by: note.superseded_by ?? '',
    body: note.parsed.body,
    current: !note.superseded_by,
  };
}

const FTS_OPTIONS = { stem: true, language: 'English', removeStopWords: true, lowercase: true, asciiFolding: true, withPosition: false };

/** How many notes a build from nothing reads and adds at a time: it never holds every note's text. */
const REBUILD_BATCH = 20_000;

/**
 * Build the full-text table from nothing: every note read once, a batch at a time, into one table,
 * then FTS indexes on title and body. Other tables of the database (the note vectors) are left
 * alone. The name index (src/corpus/files/name-index.ts) is built anew from the same reads.
 */
async function rebuild(root: string): Promise<{ added: number; files: number; manifest: Manifest }> {
  const ldb = await lance();
  const parser = await noteParser();
  fs.rmSync(manifestPath(root), { force: true });
  fs.rmSync(manifestLogPath(root), { force: true });
  fs.rmSync(marksPath(root), { force: true });
  removeTableFiles(root, TABLE);
  fs.mkdirSync(indexDir(root), { recursive: true });
  rotateJournal(indexDir(root));
  startNames(root);
  const startedAt = now();
  const journal = markJournal(indexDir(root));
  const rootNow = rootState(root);
  const scan = statNotes(root);
  const states = new FileStates();
  let files = 0;
  let table: Table | undefined;
  const db = await connectIndex(root);
  for (let i = 0; i === 0 || i < scan.length; i += REBUILD_BATCH) {
    const delta = computeDelta(root, scan.slice(i, i + REBUILD_BATCH), new FileStates(), startedAt, parser);
    files += delta.files;
    for (const [name, u] of delta.upsert) states.set(name, u.state);
    addNames(
      root,
      [...delta.upsert.values()].flatMap((u) => nameEntries(u.note)),
      { fresh: true },
    );
    const rows = [...delta.upsert.values()].map((u) => toRow(u.note));
    if (table) {
      if (rows.length) await table.add(rows);
      continue;
    }
    // An empty corpus still gets a table (with a schema taken from a placeholder row we delete).
    const seed = rows.length ? rows : [toRow(parser.noteFromText(root, path.join(root, '.placeholder.md'), '# x\n', 0, 0))];
    table = await db.createTable(TABLE, seed);
    if (!rows.length) await table.delete('true');
  }
  namesComplete(root);
  // Batches leave a fragment each, and each slows every query: folded into few before indexing.
  if (scan.length > REBUILD_BATCH) await table!.optimize({ cleanupOlderThan: new Date(now() - 60_000) });
  await table!.createIndex('title', { config: ldb.Index.fts(FTS_OPTIONS) });
  await table!.createIndex('body', { config: ldb.Index.fts(FTS_OPTIONS) });
  await indexScalars(table!);
  const builtAt = versionStamp();
  const manifest: Manifest = { files: states, refreshes: 0, builtAt, refreshedAt: builtAt };
  const id = writeManifest(root, manifest);
  writeMarks(
    root,
    marksFor({ version: MARKS_VERSION, root: rootNow, journal, scannedAt: startedAt, notes: files }, manifest, id, statesDigest(scan, startedAt)),
  );
  return { added: states.size, files, manifest };
}

/** Apply a delta to the table and the manifest (under the index lock); returns the manifest's identity. */
async function applyDelta(root: string, table: Table, manifest: KnownManifest, delta: IndexDelta): Promise<string | undefined> {
  const gone = [...delta.upsert.keys(), ...delta.removed];
  await deletePaths(table, gone);
  const rows = [...delta.upsert.values()].map((u) => toRow(u.note));
  if (rows.length) await table.add(rows);
  // What a refresh read may be a note made, renamed or retitled by another program.
  addNames(
    root,
    [...delta.upsert.values()].flatMap((u) => nameEntries(u.note)),
  );
  for (const name of delta.removed) manifest.files.delete(name);
  for (const [name, u] of delta.upsert) manifest.files.set(name, u.state);
  for (const [name, f] of delta.restat) manifest.files.set(name, f);
  manifest.refreshes += gone.length || rows.length ? 1 : 0;
  manifest.refreshedAt = versionStamp();
  // Rows stay out of the indexes only by adds, so LanceDB is asked how many after a large one:
  // smaller ones cannot reach OPTIMIZE_AFTER_ROWS before COMPACT_AFTER_WRITES refreshes compact.
  const large = rows.length >= OPTIMIZE_AFTER_ROWS / COMPACT_AFTER_WRITES;
  if (manifest.refreshes >= COMPACT_AFTER_WRITES || (large && (await unindexedRows(table, 'body_idx')) >= OPTIMIZE_AFTER_ROWS)) {
    await compact(table);
    manifest.refreshes = 0;
  }
  return recordManifestChange(root, manifest, { set: [...delta.upsert.keys(), ...delta.restat.keys()], del: delta.removed });
}

/**
 * What a warm process queries next, after a change to the table: the manifest just written (`id`,
 * undefined when it could not be) and the table at the version it describes.
 */
function keepWritten(root: string, warm: ResidentIndex | undefined, manifest: KnownManifest, id: string | undefined, table: Table): void {
  warm?.wroteIndex();
  warm?.manifest.keep(id, id === undefined ? undefined : Object.assign(manifest, { id }));
  warm?.tables.set(indexDir(root), TABLE, manifest.refreshedAt, table);
}

/** With this many refreshes since the table was last compacted, a resident process compacts it when quiet. */
export const TIDY_AFTER_WRITES = 5;

/**
 * Compact the full-text table once refreshes have left TIDY_AFTER_WRITES small fragments or more:
 * each slows every query (at 50,000 notes a query took 8 ms on a compacted table, 15 ms after 40
 * refreshes), and compacting takes most of a second there, too long for the refresh that reaches
 * COMPACT_AFTER_WRITES to wait on when a resident process can do it once writes have paused
 * (src/server/serve.ts). Searches meanwhile go on with the table they hold, at its version; a
 * refresh waits for the index lock. True when it compacted.
 */
export async function tidyIndex(root: string): Promise<boolean> {
  const warm = residentIndex();
  if ((currentManifest(root, warm)?.refreshes ?? 0) < TIDY_AFTER_WRITES) return false;
  return withIndexLock(root, async () => {
    const from = manifestId(root);
    const manifest = from === undefined ? undefined : currentManifest(root, warm);
    if (!manifest || manifest.refreshes < TIDY_AFTER_WRITES) return false;
    const table = await openTable(root, TABLE);
    if (!table) return false;
    try {
      await compact(table);
    } catch {
      // Whatever it left, the new manifest below has every process open the table anew.
    }
    manifest.refreshes = 0;
    manifest.refreshedAt = versionStamp();
    const id = recordManifestChange(root, manifest, { set: [], del: [] });
    keepWritten(root, warm, manifest, id, table);
    if (id !== undefined) carryMarks(root, from!, id, manifest.refreshedAt);
    return true;
  });
}

export interface RefreshReport {
  rebuilt: boolean;
  added: number;
  changed: number;
  removed: number;
  notes: number;
}

/** The refresh's report and what the index now knows of every note file (name → state). */
export interface IndexRefresh {
  report: RefreshReport;
  files: ReadonlyMap<string, FileState>;
  /** The manifest's `refreshedAt` the index now stands at: which table version to query. */
  refreshedAt: string;
}

async function rebuilt(root: string): Promise<IndexRefresh> {
  const { added, files, manifest } = await rebuild(root);
  return { report: { rebuilt: true, added, changed: 0, removed: 0, notes: files }, files: manifest.files, refreshedAt: manifest.refreshedAt };
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
export async function refreshIndex(root: string, opts: { rebuild?: boolean; checkAll?: boolean } = {}): Promise<IndexRefresh> {
  const warm = residentIndex();
  if (!warm) return runRefresh(root, opts);
  // Searches arriving together share one refresh; a rebuild or a full check is a refresh of its own.
  const run = (fn: () => Promise<IndexRefresh>) => (opts.rebuild || opts.checkAll ? warm.serial(fn) : warm.sharedSerial(`fts\0${root}`, fn));
  return run(async () => {
    if (!warm.watch) return runRefresh(root, opts, warm);
    // The process that keeps the resident state waited for its watcher when the call began (`caughtUp`).
    const watched = warm.watch.take();
    try {
      return await runRefresh(root, opts, warm, watched);
    } catch (err) {
      warm.watch.giveBack(watched); // the next search checks these notes again
      throw err;
    }
  });
}

async function runRefresh(root: string, opts: { rebuild?: boolean; checkAll?: boolean }, warm?: ResidentIndex, watched?: Watched): Promise<IndexRefresh> {
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
    return {
      report: { rebuilt: false, added: 0, changed: 0, removed: 0, notes: found.files },
      files: seen.manifest.files,
      refreshedAt: seen.manifest.refreshedAt,
    };
  }
  return withIndexLock(root, async () => {
    // The manifest read before locking is the one on disk unless another process refreshed meanwhile.
    const onDisk = opts.rebuild ? undefined : manifestId(root);
    const manifest = onDisk === undefined ? undefined : seen?.kind === 'delta' && seen.manifest.id === onDisk ? seen.manifest : currentManifest(root, warm);
    let table: Table | undefined;
    try {
      // The table a warm process keeps open at this very version takes the change itself: a table
      // opened anew for every refresh brings a connection and caches of its own each time.
      table = manifest ? (warm?.tables.get(indexDir(root), TABLE, manifest.refreshedAt) ?? (await openTable(root, TABLE))) : undefined;
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
    keepWritten(root, warm, manifest, id, table);
    writeMarks(root, marksFor(planned.seen, manifest, id, planned.digest.ifApplied));
    const report = { rebuilt: false, added: delta.upsert.size - changed, changed, removed: delta.removed.length, notes: delta.files };
    return { report, files: manifest.files, refreshedAt: manifest.refreshedAt };
  });
}

/** Nothing changed: the note states are read from the manifest only if someone asks for them. */
function unchanged(root: string, notes: number, refreshedAt: string, warm: ResidentIndex | undefined): IndexRefresh {
  let files: ReadonlyMap<string, FileState> | undefined;
  return {
    report: { rebuilt: false, added: 0, changed: 0, removed: 0, notes },
    refreshedAt,
    get files() {
      return (files ??= currentManifest(root, warm)?.files ?? new Map());
    },
  };
}
