/**
 * Notes already in the corpus that bear on a window. A search answers with its best hits even
 * when none is any good (vector search always has nearest neighbours, a lexical OR-query matches
 * one common word), so a hit is kept only when the note shares enough of the window's own terms.
 */
import fs from 'node:fs';
import path from 'node:path';
import { searchCorpus, type SearchHit } from '../search/backends.js';
import { queryWords, stem, stemsOf } from '../search/terms.js';

const KEY_TERMS = 10;
/** How many of the window's terms a note must contain to be shown as related. */
const MIN_SHARED = 2;

/** The most frequent content words of a window, for finding related notes. */
function keyTerms(text: string, n = KEY_TERMS): string[] {
  const counts = new Map<string, number>();
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w.length >= 4 && /\p{L}/u.test(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
  return queryWords(ranked.slice(0, n * 3).join(' ')).slice(0, n);
}

/** Every word of a text's first 200,000 characters as a search stem. */
function stems(text: string): Set<string> {
  return new Set(stemsOf(text.slice(0, 200_000)));
}

/** How many of `terms` (stems) a note's title and body contain. */
function sharedTerms(root: string, hit: SearchHit, terms: string[]): number {
  let text = hit.title;
  try {
    text += `\n${fs.readFileSync(path.join(root, hit.path), 'utf8')}`;
  } catch {
    text += `\n${hit.snippet}`;
  }
  const words = stems(text);
  return terms.filter((t) => words.has(t)).length;
}

export interface Related {
  hits: SearchHit[];
  backend?: string;
  error?: string;
}

/** Up to `limit` notes related to a window (its heading path and text), other than `exclude`. */
export async function relatedNotes(root: string, headings: string[], text: string, exclude: Set<string>, limit: number): Promise<Related> {
  if (limit <= 0) return { hits: [] };
  const query = [...headings, ...keyTerms(text)].join(' ');
  const terms = [...new Set(queryWords(query).map(stem))];
  const needed = Math.min(MIN_SHARED, terms.length);
  try {
    // Ask for more than shown: some hits fall below the floor.
    const r = await searchCorpus(root, query, { limit: 2 * limit + exclude.size });
    const hits = r.hits.filter((h) => !exclude.has(h.uuid) && sharedTerms(root, h, terms) >= needed).slice(0, limit);
    return { hits, backend: r.backend };
  } catch (err) {
    // Related notes are a help for the reader, never a reason to withhold the window.
    return { hits: [], error: String((err as Error)?.message ?? err).split('\n')[0] };
  }
}
