// Scoring rules every lexical backend shares, kept apart so that loading one backend loads no other.

/**
 * How much of the query a note covers (the share of the query's weight among the terms it
 * contains) scales its score: many repetitions of one query word do not outrank a note that
 * has them all.
 */
export const coverage = (share: number) => share;

/** How rare a term is, as BM25 weighs it: the inverse document frequency of a term `n` of `notes` notes contain. */
export function idf(n: number, notes: number): number {
  return Math.log(1 + (notes - n + 0.5) / (n + 0.5));
}

/**
 * The share of the query a note covers, each term weighed by its rarity (`idfs`, by term): a note
 * that shares a query's one rare word covers more of it than one that shares two common words.
 */
export function weightedShare(idfs: readonly number[], has: (term: number) => boolean): number {
  let covered = 0;
  let total = 0;
  for (let i = 0; i < idfs.length; i++) {
    total += idfs[i];
    if (has(i)) covered += idfs[i];
  }
  return total > 0 ? covered / total : 0;
}

/** A score as hits show it. */
export function round(score: number): number {
  return Math.round(score * 1e4) / 1e4;
}
