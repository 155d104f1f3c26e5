import type { NoteInfo } from '../corpus/note/notes.js';
import type { Query } from './terms.js';

export const BACKENDS = ['auto', 'rg', 'fts', 'vector', 'hybrid'] as const;
export type BackendName = (typeof BACKENDS)[number];

/** A search hit: the note as every JSON output shows it, plus its score and a snippet. */
export interface SearchHit extends NoteInfo {
  score: number;
  snippet: string;
  /** When the note last changed in substance: its last merge fragment's date, else its own date. */
  updated: string;
}

export interface SearchOptions {
  /** How many hits at most (after ranking). Default 8. */
  limit?: number;
  /** Include superseded notes. */
  history?: boolean;
  /**
   * A lexical relevance floor: the least share of the query's terms a hit must contain (0..1).
   * Candidate searches use it so a note that shares one incidental word is not taken for a note
   * about the same thing.
   */
  minShare?: number;
  /**
   * With `minShare`: a hit passes the floor whatever its share when its title and `title` (the
   * query note's) share a word that at most `notes(n)` of the corpus's n notes hold.
   */
  rareTitleWord?: { title: string; notes: (corpusNotes: number) => number };
  /**
   * Only the notes this accepts (by file name) are hits: the ranking is then taken deep enough to
   * hold every note, so the first `limit` hits are the best of those that qualify, not the ones
   * left of the usual top few (an `--as-of` or `--valid-at` search).
   */
  only?: (path: string) => boolean;
}

/** How deep a ranking filtered by `only` is taken: every note of any corpus. */
export const EVERY_NOTE = 1_000_000;

/** A candidate search's lexical relevance floor: the options of `SearchOptions` that set it. */
export type RelevanceFloor = Pick<SearchOptions, 'minShare' | 'rareTitleWord'>;

/** What `searchCorpus` answers: which backend answered, why it fell back (if it did), the hits. */
export interface SearchOutcome {
  backend: string;
  fallback?: string;
  hits: SearchHit[];
}

/** One search engine over a corpus root. */
export interface SearchProvider {
  readonly name: string;
  search(root: string, query: Query, opts: Required<Pick<SearchOptions, 'limit'>> & SearchOptions): Promise<SearchHit[]>;
}
