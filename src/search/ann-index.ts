import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZkError } from '../errors.js';
import { indexDir, type Table } from './lance.js';
import { runToEnd } from '../adapters/processes.js';
import type { AnnState } from './vector-state.js';

// The vector table's approximate index (IVF_PQ), kept by src/search/vector.ts: when to train it,
// and training it in a process of its own.

export const ANN_INDEX = 'vector_idx';

/** Fewest rows an IVF_PQ index trains on: each sub-vector's codebook has 256 centroids. */
export const ANN_MIN_ROWS = 256;

/** Rebuild the approximate index once the table has this many times the rows it was trained on. */
const ANN_REGROW = 4;

/**
 * Give the table LanceDB's approximate (IVF_PQ, cosine) index once it holds more than `above`
 * vectors, and train it anew when the table has grown `ANN_REGROW`-fold since: rows added in
 * between join the existing partitions when the table is optimized (and until then are scanned
 * exactly beside the index), but partitions trained on a quarter of the notes fit the rest less
 * well. A table that shrank back below the threshold keeps its index: dropping it would gain nothing.
 */
export async function keepAnnIndex(root: string, table: Table, ann: AnnState | undefined, above: number): Promise<AnnState | undefined> {
  const rows = await table.countRows();
  if (ann ? rows < ann.rows * ANN_REGROW : rows <= Math.max(above, ANN_MIN_ROWS)) return ann;
  const dimension = ((await table.query().select(['vector']).limit(1).toArray()) as { vector: ArrayLike<number> }[])[0].vector.length;
  // About √n partitions of about √n rows each (LanceDB's own advice); a query probes half of them.
  const partitions = Math.max(1, Math.round(Math.sqrt(rows)));
  // Sub-vectors of four dimensions keep the compressed distances close enough that re-ranking the
  // best tenfold by exact distance finds the true top 10; long vectors (where that would make
  // training slow) get LanceDB's default (16 dimensions each).
  const numSubVectors = dimension % 4 === 0 && dimension <= 256 ? dimension / 4 : undefined;
  await trainAnnIndex(root, table, { distanceType: 'cosine', numPartitions: partitions, numSubVectors });
  return { rows, partitions };
}

/** The compiled worker; run from TypeScript sources (a test runner), the one the build made. */
function ivfBuildWorker(): string {
  const beside = fileURLToPath(new URL('./ivf-build.js', import.meta.url));
  return fs.existsSync(beside) ? beside : path.resolve(path.dirname(beside), '../../dist/src/search/ivf-build.js');
}

/**
 * Train the table's IVF_PQ index in a process of its own (src/search/ivf-build.ts), whose temporary
 * folder is a scratch folder in the index folder, removed afterwards: lance shuffles the build
 * through the temporary folder, which only the environment names, and leaves a copy of the vectors
 * there. The table is then brought to the version the build wrote.
 */
async function trainAnnIndex(root: string, table: Table, config: { distanceType: 'cosine'; numPartitions: number; numSubVectors?: number }): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(indexDir(root), '.build-'));
  const worker = ivfBuildWorker();
  try {
    await runToEnd(process.execPath, [worker, indexDir(root), table.name, 'vector', JSON.stringify(config)], { ...process.env, TMPDIR: scratch }).catch(
      (err: Error) => {
        throw new ZkError('io', `the vector index could not be built: ${err.message}`);
      },
    );
    await table.checkoutLatest();
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
