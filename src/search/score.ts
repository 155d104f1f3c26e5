// Scoring rules every lexical backend shares, kept apart so that loading one backend loads no other.

/**
 * How much of the query a note covers (the share of the query's weight among the terms it
 * contains) scales its score: many repetitions of one query word do not outrank a note that
 * has them all.
 */
export const coverage = (share: number) => share;

/** A score as hits show it. */
export function round(score: number): number {
  return Math.round(score * 1e4) / 1e4;
}
