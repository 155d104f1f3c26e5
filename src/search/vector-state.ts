// What the vector index knows of the corpus (src/search/vector.ts reads and writes it), apart so
// that what keeps it between calls (src/search/resident-index.ts) need not import the vector search.

/** The model and dimension the vector table is pinned to, and the content hash each note was embedded at. */
export interface VectorState {
  model: string;
  dimension: number;
  files: Map<string, string>;
  refreshes: number;
  refreshedAt: string;
  /** How similar two notes of the corpus are when nothing chose them for being alike (see `relevanceFloor` in src/search/vector-floor.ts). */
  baseline?: Baseline;
  /** The approximate index, once the table has one (see `keepAnnIndex`). */
  ann?: AnnState;
}

/** How the approximate index was built: on how many rows, into how many partitions. */
export interface AnnState {
  rows: number;
  partitions: number;
}

/** The mean and standard deviation of the cosine similarity between sampled pairs of notes. */
export interface Baseline {
  mean: number;
  sd: number;
}
