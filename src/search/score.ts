// Scoring rules every lexical backend shares, kept apart so that loading one backend loads no other.
import { stemsOf } from './terms.js';
import type { RelevanceFloor } from './types.js';

/**
 * How much of the query a note covers (the share of the query's weight among the terms it
 * contains) scales its score: many repetitions of one query word do not outrank a note that
 * has them all.
 */
export const coverage = (share: number) => share;

/**
 * What a relevance floor is told of the query's terms (`stems`): which are words of the query's
 * title (`titled`, see `SearchOptions.rareTitleWord`), and how many of the corpus's `notes` notes
 * hold each of those (`df`; a backend may stop counting past the floor's bound).
 */
export interface TermRarity {
  notes: number;
  stems: readonly string[];
  titled: readonly boolean[];
  df: readonly number[];
}

/** The query's terms that are words of the floor's title, by term (none without `rareTitleWord`). */
export function titleTerms(stems: readonly string[], o: RelevanceFloor): boolean[] {
  const title = new Set(o.rareTitleWord ? stemsOf(o.rareTitleWord.title) : []);
  return stems.map((s) => title.has(s));
}

/**
 * Whether a note is like enough the query to pass its relevance floor (see `SearchOptions`): it
 * holds `minShare` of the query's terms, or, with `rareTitleWord`, its title (`title()`) and the
 * query's title share a word so rare that at most `rareTitleWord.notes(notes)` notes hold it.
 */
export function passesFloor(o: RelevanceFloor, rarity: TermRarity, has: (term: number) => boolean, title: () => string): boolean {
  const held = rarity.stems.filter((_, i) => has(i)).length;
  if (held / rarity.stems.length >= (o.minShare ?? 0)) return true;
  if (!o.rareTitleWord) return false;
  const bound = o.rareTitleWord.notes(rarity.notes);
  const rare = rarity.stems.filter((_, i) => rarity.titled[i] && rarity.df[i] > 0 && rarity.df[i] <= bound && has(i));
  if (!rare.length) return false;
  const own = new Set(stemsOf(title()));
  return rare.some((s) => own.has(s));
}

/** A score as hits show it. */
export function round(score: number): number {
  return Math.round(score * 1e4) / 1e4;
}
