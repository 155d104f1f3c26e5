import type { Embedder } from '../llm/embed.js';
import { ftsHits } from './fts.js';
import { refreshIndex } from './fts-table.js';
import type { FileState } from './manifest.js';
import { hitsFromRanking, type Ranked } from './hits.js';
import type { Query } from './terms.js';
import type { SearchHit, SearchOptions } from './types.js';
import { EVERY_NOTE } from './types.js';
import { vectorRanking, type Progress } from './vector.js';

/** The search options, and where to report a long embedding run (a first search embeds every note). */
type Options = SearchOptions & { limit: number; progress?: Progress };

/** How many candidates each ranking brings to the fusion: enough that a note ranked well by one is not lost. */
/** The pool a search draws its hits from: every note when only some qualify (see SearchOptions.only). */
export function poolFor(o: { limit: number; only?: unknown }): number {
  return o.only ? EVERY_NOTE : poolSize(o.limit);
}

export function poolSize(limit: number): number {
  return Math.max(50, limit * 5);
}

/**
 * How much the vector ranking weighs against the full-text one. Embedders range from word-vector
 * averages to strong hosted models: at this weight a weak one cannot push notes that share the
 * query's rare words out of the top, and a strong one still lifts a paraphrase past weak word matches.
 */
export const VECTOR_WEIGHT = 0.3;

/** Scores mapped onto 0..1 within one ranking: the best is 1, the last 0 (a lone hit is 1). */
function normalised(ranking: Ranked[], min: number): Map<string, number> {
  const max = ranking[0]?.score ?? 0;
  return new Map(ranking.map((r) => [r.name, max > min ? (r.score - min) / (max - min) : 1]));
}

/**
 * Score fusion: each note scores its full-text score relative to the best full-text hit (0..1),
 * plus `weight` times its similarity placed between the least and the most similar vector hit
 * (0..1). Unlike equal-weight rank fusion, a note that only a weak embedder likes cannot outrank
 * one that matches the query's words well; a note both agree on rises.
 */
export function fuseScores(lexical: Ranked[], semantic: Ranked[], weight = VECTOR_WEIGHT): Ranked[] {
  const lex = normalised(lexical, 0);
  const sem = normalised(semantic, semantic.at(-1)?.score ?? 0);
  const scores = new Map(lex);
  for (const [name, s] of sem) scores.set(name, (scores.get(name) ?? 0) + weight * s);
  return [...scores].map(([name, score]) => ({ name, score })).sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The full-text half: the index refreshed once (its manifest also drives the vectors), and its best `pool` hits. */
export interface LexicalPool {
  files: ReadonlyMap<string, FileState>;
  hits: SearchHit[];
}

export async function lexicalPool(root: string, query: Query, o: Options, pool: number): Promise<LexicalPool> {
  if (!query.words.length) return { files: new Map(), hits: [] };
  const refreshed = await refreshIndex(root);
  const hits = await ftsHits(root, query, { ...o, limit: pool }, refreshed.refreshedAt);
  // The note states are read (from the manifest) only when the vectors need them.
  return {
    get files() {
      return refreshed.files;
    },
    hits,
  };
}

/**
 * Hybrid hits: the full-text pool fused with the vector ranking. `retries` applies to the query's
 * embedding (0 when a lexical answer stands ready as the fallback).
 */
export async function fuseWithVectors(
  root: string,
  query: Query,
  o: Options,
  lexical: LexicalPool,
  embedder: Embedder,
  retries?: number,
): Promise<SearchHit[]> {
  if (!query.words.length) return [];
  const semantic = await vectorRanking(root, embedder, query.text, lexical.files, { limit: poolFor(o), history: o.history, retries, progress: o.progress });
  const fused = fuseScores(
    lexical.hits.map((h) => ({ name: h.path, score: h.score })),
    semantic,
  );
  return hitsFromRanking(root, fused, query.prefixes, o);
}

/** Vector hits alone: the notes nearest in meaning, scored by cosine similarity. */
export async function vectorHits(root: string, query: Query, o: Options, embedder: Embedder): Promise<SearchHit[]> {
  if (!query.words.length) return [];
  const { files } = await refreshIndex(root);
  const ranked = await vectorRanking(root, embedder, query.text, files, { limit: poolFor(o), history: o.history, progress: o.progress });
  return hitsFromRanking(root, ranked, query.prefixes, o);
}
