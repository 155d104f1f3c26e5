import { now } from '../context.js';
import { ZkError } from '../errors.js';
import { hint } from '../hints.js';
import { checkKind } from '../corpus/note/kinds.js';
import type { CorpusStatus } from '../corpus/ops/status.js';
import type { Embedder } from '../llm/embed.js';
import type { StatedNotes } from '../search/index-scan.js';
import type { NoteMeta } from '../corpus/note/note-meta.js';
import type { BackendName, SearchHit } from '../search/types.js';
import type { SearchRequest } from './search-request.js';
import type { GitState } from '../adapters/git.js';

export type { SearchRequest } from './search-request.js';

export interface SearchResult {
  query: string;
  backend: string;
  /** Why the configured backend was not the one that answered. */
  fallback?: string;
  hits: SearchHit[];
}

/** Ranked notes for a question or some words. */
export async function search(root: string, query: string, o: SearchRequest = {}): Promise<SearchResult> {
  // Nothing to look for is a mistake of the caller, not a search that found nothing.
  if (!query?.trim()) throw new ZkError('usage', `query is empty: ${hint('searchWords')}`);
  const { searchCorpus, DEFAULT_LIMIT } = await import('../search/backends.js');
  const kind = checkKind(o.kind);
  const limit = o.limit ?? DEFAULT_LIMIT;
  // The query is read here once: every backend, ranking and snippet of the search takes it parsed.
  const asked = (await import('../search/terms.js')).parseQuery(query);
  if (o.asOf !== undefined || o.validAt !== undefined) return (await import('./search-time.js')).searchInTime(root, asked, { ...o, limit });
  // A kind filter looks deeper into the ranking, so a page of that kind is still full.
  const r = await searchCorpus(root, asked, { ...o, limit: kind ? Math.min(limit * 5, 200) : limit });
  const hits = kind ? r.hits.filter((h) => h.kind === kind).slice(0, limit) : r.hits;
  return { query, backend: r.backend, ...(r.fallback ? { fallback: r.fallback } : {}), hits };
}

/** The backends a search can use with this call's settings: vector and hybrid only with an embedder (an endpoint, or the built-in one). */
export async function searchBackends(): Promise<BackendName[]> {
  const { BACKENDS } = await import('../search/types.js');
  const { embedderChoice } = await import('../llm/embed.js');
  const embeds = embedderChoice().kind !== 'none';
  return BACKENDS.filter((b) => embeds || (b !== 'vector' && b !== 'hybrid'));
}

/**
 * How fresh the full-text index and the vectors are (`listed`: the notes' stamps in name order
 * when just taken, and when they were taken).
 */
export async function indexStatus(root: string, listed?: StatedNotes) {
  const { scanIndex } = await import('../search/index-scan.js');
  const { vectorStatus } = await import('../search/vector.js');
  const { indexLocation } = await import('../search/location.js');
  const location = indexLocation(root);
  const { freshness, hashes } = await scanIndex(root, listed);
  return { ...freshness, location, vectors: vectorStatus(root, hashes) };
}

export type IndexStatus = Awaited<ReturnType<typeof indexStatus>>;

export interface IndexRequest {
  rebuild?: boolean;
  embedder?: Embedder;
  /** Told how a long embedding run goes. */
  progress?: (line: string) => void;
}

/** Notes per step of a slow (built-in) embedder: a progress line every few seconds. */
const BACKGROUND_CHUNK = 32;

/** Bring the full-text index (and, with an embedder, the note vectors) up to date. */
export async function index(root: string, o: IndexRequest = {}) {
  const { refreshIndex } = await import('../search/fts-table.js');
  const vectors = await import('../search/vector.js');
  const rebuild = Boolean(o.rebuild);
  // The index lock alone serializes index builds: the index is per-host state, not corpus upkeep.
  // `index` checks every note file, so it also finds what other programs changed in place.
  const refreshed = await refreshIndex(root, { rebuild, checkAll: true });
  const action = refreshed.report.rebuilt ? ('rebuilt' as const) : ('refreshed' as const);
  // A rebuild starts the vectors over too: re-embedded with the configured model, else dropped.
  if (o.embedder)
    return {
      action,
      ...refreshed.report,
      vectors: await vectors.refreshVectors(root, o.embedder, refreshed.files, {
        rebuild,
        progress: o.progress,
        chunk: o.embedder.background ? BACKGROUND_CHUNK : undefined,
      }),
    };
  if (rebuild) await vectors.dropVectors(root);
  return { action, ...refreshed.report };
}

export type IndexResult = Awaited<ReturnType<typeof index>>;

export interface StatusResult extends CorpusStatus {
  root: string;
  index: IndexStatus;
  /** Whether the corpus is in a git work tree, and how many of the tool's files are uncommitted. */
  git: GitState;
}

/** Corpus figures, index freshness, lock and lease holders, the last gardener pass. */
export async function status(root: string): Promise<StatusResult> {
  const { corpusStatus, noteFigures } = await import('../corpus/ops/status.js');
  const { keptMetasBuilt, loadNoteMetas } = await import('../corpus/note/note-meta.js');
  const { gitState } = await import('../adapters/git.js');
  // The notes are listed and stated once, for the corpus figures and the index's freshness alike;
  // a resident process keeps what it makes of them until a note changes.
  const seenAt = now();
  // A note's metadata holds its file name and stamp: the notes are their own stats, in name order.
  const look = (notes: readonly NoteMeta[]) => ({ figures: noteFigures(notes), stats: notes });
  const { figures, stats } = keptMetasBuilt(root, 'status', look) ?? look(loadNoteMetas(root));
  return { root, ...corpusStatus(root, figures), index: await indexStatus(root, { seenAt, stats }), git: await gitState(root) };
}

/** An index action named on the command line: none (refresh), or `status`. */
export function checkIndexAction(what: string | undefined): 'refresh' | 'status' {
  if (what === undefined) return 'refresh';
  if (what === 'status') return 'status';
  throw new ZkError('usage', `unknown index action: ${JSON.stringify(what)} (use "index", "index --rebuild" or "index status")`);
}
