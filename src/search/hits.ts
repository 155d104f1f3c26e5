import { noteInfo, readNoteFile } from '../corpus/note/notes.js';
import { round } from './score.js';
import { lastUpdated, snippet } from './snippet.js';
import type { SearchHit, SearchOptions } from './types.js';

/** A ranked file: its name and its score. */
export interface Ranked {
  name: string;
  score: number;
}

/**
 * Turn a ranking into hits: read each note in rank order, leave out superseded notes (unless
 * history is asked for) and files that vanished or cannot be read, stop at the limit. `weight`
 * says how much each query term weighs when the snippet is chosen.
 */
export function hitsFromRanking(
  root: string,
  ranked: Ranked[],
  terms: readonly string[],
  opts: SearchOptions & { limit: number },
  weight?: (term: string) => number,
): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const r of ranked) {
    if (hits.length >= opts.limit) break;
    if (opts.only && !opts.only(r.name)) continue;
    const note = readNoteFile(root, r.name);
    if (!note || (note.superseded_by && !opts.history)) continue;
    hits.push({
      ...noteInfo(note),
      score: round(r.score),
      snippet: snippet(note.parsed.body, terms, weight),
      updated: lastUpdated(note.parsed.body, note.date),
    });
  }
  return hits;
}
