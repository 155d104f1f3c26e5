import type { Table } from './lance.js';
import type { Baseline } from './vector-state.js';

// When a note is near enough to a query to be a hit: the similarity two notes of the corpus
// typically have (sampled from the vector table), less a margin (src/search/vector.ts ranks by it).

/** How many notes' vectors are sampled for the baseline: enough pairs (8,128) for a steady mean and spread. */
const BASELINE_SAMPLE = 128;

/** The similarity between sampled pairs of notes; undefined with too few notes to say. */
export async function sampleBaseline(table: Table): Promise<Baseline | undefined> {
  const rows = (await table.query().select(['vector']).limit(BASELINE_SAMPLE).toArray()) as { vector: ArrayLike<number> }[];
  const units = rows.map((r) => {
    const v = Array.from(r.vector);
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  });
  const sims: number[] = [];
  for (let i = 0; i < units.length; i++) {
    for (let j = i + 1; j < units.length; j++) {
      let dot = 0;
      for (let k = 0; k < units[i].length; k++) dot += units[i][k] * units[j][k];
      sims.push(dot);
    }
  }
  if (sims.length < 28) return undefined; // fewer than 8 notes
  const mean = sims.reduce((a, b) => a + b, 0) / sims.length;
  const sd = Math.sqrt(sims.reduce((a, b) => a + (b - mean) ** 2, 0) / sims.length);
  return { mean, sd };
}

/** How many standard deviations below the baseline mean a note may be and still count as a hit. */
const FLOOR_SD = 1.5;

/**
 * The least cosine similarity that makes a note a hit: a query must be about as close to a note
 * as two notes of the corpus typically are to each other (less 1.5 standard deviations). It adapts
 * to each embedder's scale (some put every text above 0.6, others below 0.3) and to the corpus (a
 * notebook of one topic is close-knit). Without a baseline (fewer than eight notes) every note counts.
 */
export function relevanceFloor(baseline: Baseline | undefined): number {
  return baseline ? baseline.mean - FLOOR_SD * baseline.sd : -Infinity;
}
