import { EVERY_NOTE } from './types.js';
import fs from 'node:fs';
import path from 'node:path';
import { settings } from '../context.js';
import { ZkError } from '../errors.js';
import { hint } from '../hints.js';
import { decodeNote, noteFromText, type Note } from '../corpus/note/notes.js';
import type { Embedder } from '../ports.js';
import { contentHash } from './manifest.js';
import type { FileState } from './manifest.js';
import {
  COMPACT_AFTER_WRITES,
  OPTIMIZE_AFTER_ROWS,
  compact,
  connectIndex,
  deletePaths,
  indexDir,
  openTable,
  removeTableFiles,
  unindexedRows,
  withIndexLock,
  type Table,
} from './lance.js';
import type { Ranked } from './hits.js';
import { fileIdentity, readIndexRecord, writeIndexRecord } from './index-record.js';
import type { AnnState, Baseline, VectorState } from './vector-state.js';
import { residentIndex, versionStamp } from './resident-index.js';
import { ANN_INDEX, ANN_MIN_ROWS, keepAnnIndex } from './ann-index.js';
import { relevanceFloor, sampleBaseline } from './vector-floor.js';

const TABLE = 'vectors';
const STATE_VERSION = 1;
/** Notes embedded and written per step: bounds memory and lock time, and keeps progress if interrupted. */
const CHUNK = 512;

interface VectorStateFile {
  version: number;
  model: string;
  dimension: number;
  files: [string, string][];
  refreshes: number;
  refreshedAt: string;
  baseline?: Baseline;
  ann?: AnnState;
}

type VectorRow = { path: string; hash: string; current: boolean; vector: number[] };

function statePath(root: string): string {
  return path.join(indexDir(root), 'vectors.json');
}

export function readVectorState(root: string): VectorState | undefined {
  const s = readIndexRecord<VectorStateFile>(statePath(root), STATE_VERSION)?.record;
  if (!s || !Array.isArray(s.files) || typeof s.model !== 'string') return undefined;
  return {
    model: s.model,
    dimension: s.dimension,
    files: new Map(s.files),
    refreshes: s.refreshes,
    refreshedAt: s.refreshedAt,
    baseline: s.baseline,
    ann: s.ann,
  };
}

/**
 * The vector state for reading: a warm process keeps the one it last read or wrote, and reads the
 * file again only when another process has replaced it. Writers read it afresh under the lock.
 */
function loadVectorState(root: string): VectorState | undefined {
  const warm = residentIndex();
  return warm ? warm.vectors.load(fileIdentity(statePath(root)), () => readVectorState(root)) : readVectorState(root);
}

function writeVectorState(root: string, s: VectorState): void {
  const out: VectorStateFile = {
    version: STATE_VERSION,
    model: s.model,
    dimension: s.dimension,
    files: [...s.files],
    refreshes: s.refreshes,
    refreshedAt: s.refreshedAt,
    baseline: s.baseline,
    ann: s.ann,
  };
  const id = writeIndexRecord(statePath(root), out);
  residentIndex()?.vectors.keep(id, s);
}

/** Refuse (exit 1) to mix vectors of another model or dimension into the pinned table. */
function assertPinned(state: VectorState, model: string, dimension?: number): void {
  if (state.model !== model) {
    throw new ZkError(
      'refused',
      `the vector index holds embeddings of model ${JSON.stringify(state.model)}, not ${JSON.stringify(model)}: ${hint('rebuildVectors')}`,
    );
  }
  if (dimension !== undefined && dimension !== state.dimension) {
    throw new ZkError(
      'refused',
      `the vector index holds ${state.dimension}-dimension embeddings, but model ${JSON.stringify(model)} now answers ${dimension}: ${hint('rebuildVectors')}`,
    );
  }
}

/** What is embedded of a note: its title, then its body without a heading that repeats the title. */
export function embeddingText(note: Note): string {
  const body = note.parsed.body.trim().replace(/^#[ \t]+(.*)(\r?\n|$)/, (line, heading: string) => (heading.trim() === note.title ? '' : line));
  return `${note.title}\n\n${body.trim()}`;
}

interface Embeddable {
  name: string;
  hash: string;
  note: Note;
}

/** Read the notes to embed, each with the hash of the bytes read; gone or unreadable ones are left out. */
function readEmbeddable(root: string, names: string[]): Embeddable[] {
  const out: Embeddable[] = [];
  for (const name of names) {
    const file = path.join(root, name);
    try {
      const buf = fs.readFileSync(file);
      const text = decodeNote(buf, name);
      // Only the title, body and supersession of the note are used here, not its modification time.
      if (text !== undefined) out.push({ name, hash: contentHash(buf), note: noteFromText(root, file, text, buf.length, 0) });
    } catch {
      // gone since the change scan: the next refresh removes it
    }
  }
  return out;
}

/**
 * Write one step of embeddings (and remove notes that are gone) under the index lock. `fresh`
 * starts the table over, pinned to this model. Rows another process wrote meanwhile are not
 * written twice.
 */
async function applyStep(
  root: string,
  model: string,
  items: Embeddable[],
  vectors: number[][],
  remove: string[],
  fresh: boolean,
): Promise<{ written: number; state?: VectorState }> {
  return withIndexLock(root, async () => {
    let state = fresh ? undefined : readVectorState(root);
    let table = state ? await openTable(root, TABLE) : undefined;
    if (state && !table) state = undefined;
    if (state) assertPinned(state, model, vectors[0]?.length);
    const rows: VectorRow[] = items
      .map((it, i) => ({ path: it.name, hash: it.hash, current: !it.note.superseded_by, vector: vectors[i] }))
      .filter((r) => state?.files.get(r.path) !== r.hash);
    if (!state || !table) {
      // Vectors without a pinned model (or a state without its table) cannot be trusted: start over.
      fs.rmSync(statePath(root), { force: true });
      removeTableFiles(root, TABLE);
      if (!rows.length) return { written: 0 };
      table = await (await connectIndex(root)).createTable(TABLE, rows);
      state = { model, dimension: rows[0].vector.length, files: new Map(), refreshes: 0, refreshedAt: '' };
    } else {
      await deletePaths(table, [...rows.map((r) => r.path), ...remove]);
      if (rows.length) await table.add(rows);
      state.refreshes += 1;
    }
    for (const name of remove) state.files.delete(name);
    for (const r of rows) state.files.set(r.path, r.hash);
    state.refreshedAt = versionStamp();
    if (state.refreshes >= COMPACT_AFTER_WRITES || (state.ann && (await unindexedRows(table, ANN_INDEX)) >= OPTIMIZE_AFTER_ROWS)) {
      await compact(table);
      state.refreshes = 0;
    }
    state.ann = await keepAnnIndex(root, table, state.ann, settings().vectorIndexAbove());
    state.baseline = await sampleBaseline(table);
    writeVectorState(root, state);
    return { written: rows.length, state };
  });
}

export interface VectorReport {
  model: string;
  dimension: number | null;
  rebuilt: boolean;
  embedded: number;
  removed: number;
  notes: number;
  /** Notes still to embed: a run with a `limit` stops before them. */
  left: number;
}

/** Told how a long embedding run is going, one line at a time. */
export type Progress = (line: string) => void;

export interface VectorRefreshOptions {
  /** Start the table over, pinned to this embedder's model. */
  rebuild?: boolean;
  progress?: Progress;
  /** Notes embedded and written per step (default 512). */
  chunk?: number;
  /** Stop after about this many notes (whole steps): a bounded batch of a background run. */
  limit?: number;
}

/**
 * Bring the note vectors up to date with the full-text index's view of the files (`files`, from
 * `refreshIndex`): only notes whose content hash the table lacks are read and embedded, notes that are
 * gone leave it. Embedding happens outside any lock, writing under the index lock. A model other than
 * the pinned one is refused unless `rebuild`, which starts the table over with this model.
 */
export async function refreshVectors(
  root: string,
  embedder: Embedder,
  files: ReadonlyMap<string, FileState>,
  opts: VectorRefreshOptions = {},
): Promise<VectorReport> {
  return (await runRefresh(root, embedder, files, opts, readVectorState(root))).report;
}

/** `refreshVectors` from a state already read; also answers the state it leaves. */
async function runRefresh(
  root: string,
  embedder: Embedder,
  files: ReadonlyMap<string, FileState>,
  opts: VectorRefreshOptions,
  loaded: VectorState | undefined,
) {
  try {
    return await refreshSteps(root, embedder, files, opts, opts.rebuild ? undefined : loaded);
  } catch (err) {
    if (err instanceof ZkError || opts.rebuild) throw err;
    // A table LanceDB cannot read or write is started over rather than left half-updated.
    return refreshSteps(root, embedder, files, { ...opts, rebuild: true }, undefined);
  }
}

async function refreshSteps(
  root: string,
  embedder: Embedder,
  files: ReadonlyMap<string, FileState>,
  opts: VectorRefreshOptions,
  state: VectorState | undefined,
): Promise<{ report: VectorReport; state?: VectorState }> {
  // The built-in model is not chosen per call: when it changes (another version, another folder) its vectors are made anew.
  if (state && embedder.background && state.model !== embedder.model) {
    opts = { ...opts, rebuild: true };
    state = undefined;
  }
  if (state) assertPinned(state, embedder.model);
  const chunk = opts.chunk ?? CHUNK;
  // Plain loops: at 50k notes a search in a warm process makes this comparison every time.
  const todo: string[] = [];
  for (const [name, f] of files) if (state?.files.get(name) !== f.hash) todo.push(name);
  const gone: string[] = [];
  if (state) for (const name of state.files.keys()) if (!files.has(name)) gone.push(name);
  let remove = gone;
  let fresh = Boolean(opts.rebuild);
  let embedded = 0;
  let after = state;
  // A table already past the threshold without the index (made by an older version, or the
  // threshold lowered) gets it now, not only once a note changes.
  const indexDue = Boolean(state && !state.ann && state.files.size > Math.max(settings().vectorIndexAbove(), ANN_MIN_ROWS));
  for (let i = 0; i < todo.length || fresh || remove.length || (i === 0 && indexDue); i += chunk) {
    const items = readEmbeddable(root, todo.slice(i, i + chunk));
    const vectors = items.length ? await embedder.embed(items.map((it) => embeddingText(it.note))) : [];
    const step = await applyStep(root, embedder.model, items, vectors, remove, fresh);
    embedded += step.written;
    after = step.state;
    fresh = false;
    remove = [];
    // Only a run of several steps (a first embedding, a new model) is long enough to report.
    if (todo.length > chunk) opts.progress?.(`embedded ${Math.min(i + chunk, todo.length)} of ${todo.length} notes with ${JSON.stringify(embedder.model)}`);
    if (opts.limit !== undefined && i + chunk >= opts.limit) break;
  }
  const report = {
    model: embedder.model,
    dimension: after?.dimension ?? null,
    rebuilt: Boolean(opts.rebuild),
    embedded,
    removed: gone.length,
    notes: after?.files.size ?? 0,
    left: Math.max(0, todo.length - (opts.limit ?? todo.length)),
  };
  return { report, state: after };
}

/** Remove the note vectors and their pin (under the index lock): the next vector search embeds every note anew. */
export async function dropVectors(root: string): Promise<void> {
  await withIndexLock(root, () => {
    fs.rmSync(statePath(root), { force: true });
    removeTableFiles(root, TABLE);
  });
}

/**
 * The notes nearest to the query that pass the relevance floor, best first, scored by cosine
 * similarity. The query is embedded first, so an unreachable endpoint fails before any note is; `retries` applies to that call.
 */
export async function vectorRanking(
  root: string,
  embedder: Embedder,
  query: string,
  files: ReadonlyMap<string, FileState>,
  opts: { limit: number; history?: boolean; retries?: number; progress?: Progress },
): Promise<Ranked[]> {
  const pinned = loadVectorState(root);
  // An embedder that indexes in the background ranks by the vectors there are: none yet (or only
  // another model's, until they are rebuilt) means no ranking by meaning, and no model to load.
  if (embedder.background && pinned?.model !== embedder.model) return [];
  if (pinned) assertPinned(pinned, embedder.model);
  const [queryVector] = await embedder.embed([query], { retries: opts.retries });
  const { state } = embedder.background ? { state: pinned } : await runRefresh(root, embedder, files, { progress: opts.progress }, pinned);
  if (!state) return [];
  assertPinned(state, embedder.model, queryVector.length);
  const table = await openTable(root, TABLE);
  if (!table) return [];
  const floor = relevanceFloor(state.baseline ?? (await sampleBaseline(table)));
  const limit = opts.limit >= EVERY_NOTE ? await table.countRows() : opts.limit;
  return (await nearest(table, queryVector, limit, Boolean(opts.history), state.ann)).filter((r) => r.score >= floor);
}

/** How many candidates the approximate search re-ranks by exact distance, per hit asked for. */
const REFINE_FACTOR = 10;

/** The `limit` notes nearest to `vector`; with `ann`, through the approximate index as a search makes it. */
export async function nearest(table: Table, vector: number[], limit: number, history: boolean, ann: AnnState | undefined): Promise<Ranked[]> {
  let q = table.vectorSearch(vector).distanceType('cosine').select(['path', '_distance']).limit(limit);
  // Half the partitions (at least LanceDB's default 20) and a tenfold re-rank keep the top 10
  // within 95% of the exact scan's even for embeddings that cluster poorly; a quarter did not
  // (docs/performance.md). Rows not yet in the index are scanned exactly either way.
  if (ann) q = q.nprobes(Math.max(20, Math.ceil(ann.partitions / 2))).refineFactor(REFINE_FACTOR);
  if (!history) q = q.where('current = true');
  const rows = (await q.toArray()) as { path: string; _distance: number }[];
  return rows.map((r) => ({ name: r.path, score: 1 - r._distance }));
}

export interface VectorStatus {
  model: string;
  dimension: number;
  notes: number;
  /** Notes on disk whose current content is not embedded, plus embedded notes that are gone. */
  pending: number | null;
  /** Notes on disk whose current content is embedded, of `total` notes on disk (until then hybrid ranks them by their words). */
  upToDate: number | null;
  total: number | null;
  refreshedAt: string;
}

/**
 * The pinned model and dimension and how far the vectors are behind the files (`hashesOf`: name →
 * content hash on disk, asked for only when there are vectors).
 */
export function vectorStatus(root: string, hashesOf?: () => ReadonlyMap<string, string>): VectorStatus | null {
  const s = readVectorState(root);
  if (!s) return null;
  let pending: number | null = null;
  let upToDate: number | null = null;
  const hashes = hashesOf?.();
  if (hashes) {
    upToDate = [...hashes].filter(([name, hash]) => s.files.get(name) === hash).length;
    pending = hashes.size - upToDate + [...s.files.keys()].filter((name) => !hashes.has(name)).length;
  }
  return { model: s.model, dimension: s.dimension, notes: s.files.size, pending, upToDate, total: hashes?.size ?? null, refreshedAt: s.refreshedAt };
}
