import type { Embedder } from '../llm/embed.js';
import { ftsHits, syncIndex, type FileState } from './fts.js';
import { hitsFromRanking, type Ranked } from './hits.js';
import { queryWords, snippetTerms } from './terms.js';
import type { SearchHit, SearchOptions } from './types.js';
import { vectorRanking, type Progress } from './vector.js';

/** The search options, and where to report a long embedding run (a first search embeds every note). */
type Options = SearchOptions & { limit: number; progress?: Progress };

/** The reciprocal rank fusion constant: it keeps one ranking's first place from outweighing agreement between both. */
export const RRF_K = 60;

/** How many candidates each ranking brings to the fusion: enough that a note ranked well by one is not lost. */
export function poolSize(limit: number): number {
  return Math.max(50, limit * 5);
}

/** Reciprocal rank fusion: each note scores the sum of 1 / (k + rank) over the rankings it is in. */
export function fuseRankings(rankings: string[][], k = RRF_K): Ranked[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) ranking.forEach((name, i) => scores.set(name, (scores.get(name) ?? 0) + 1 / (k + i + 1)));
  return [...scores].map(([name, score]) => ({ name, score })).sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
}

/** The full-text half: the index refreshed once (its manifest also drives the vectors), and its best `pool` hits. */
export interface LexicalPool {
  files: ReadonlyMap<string, FileState>;
  hits: SearchHit[];
}

export async function lexicalPool(root: string, query: string, o: Options, pool: number): Promise<LexicalPool> {
  if (!queryWords(query).length) return { files: new Map(), hits: [] };
  const { files } = await syncIndex(root);
  return { files, hits: await ftsHits(root, query, { ...o, limit: pool }) };
}

/**
 * Hybrid hits: the full-text pool fused with the vector ranking. `retries` applies to the query's
 * embedding (0 when a lexical answer stands ready as the fallback).
 */
export async function fuseWithVectors(root: string, query: string, o: Options, lexical: LexicalPool, embedder: Embedder, retries?: number): Promise<SearchHit[]> {
  if (!queryWords(query).length) return [];
  const semantic = await vectorRanking(root, embedder, query, lexical.files, { limit: poolSize(o.limit), history: o.history, retries, progress: o.progress });
  const fused = fuseRankings([lexical.hits.map((h) => h.path), semantic.map((r) => r.name)]);
  return hitsFromRanking(root, fused, snippetTerms(query), o);
}

/** Vector hits alone: the notes nearest in meaning, scored by cosine similarity. */
export async function vectorHits(root: string, query: string, o: Options, embedder: Embedder): Promise<SearchHit[]> {
  if (!queryWords(query).length) return [];
  const { files } = await syncIndex(root);
  const ranked = await vectorRanking(root, embedder, query, files, { limit: poolSize(o.limit), history: o.history, progress: o.progress });
  return hitsFromRanking(root, ranked, snippetTerms(query), o);
}
