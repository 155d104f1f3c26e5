import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { replaceDerivedFile } from '../corpus/files.js';
import { withLock } from '../corpus/lock.js';
import { indexLocation } from './location.js';

export type LanceDb = typeof import('@lancedb/lancedb');
export type Table = import('@lancedb/lancedb').Table;

/** Fewest threads lance's CPU pool may have for a full-text index build to always finish. */
export const MIN_LANCE_CPU_THREADS = 4;

/**
 * The LanceDB runtime settings this process needs, beyond what the user set.
 *
 * Lance builds a full-text index with posting-list producers running on its CPU pool, each handing
 * batches through a one-slot channel to a writer that itself needs a pool thread to encode them.
 * When the producers hold every pool thread, producer and writer wait on each other forever: 0%
 * CPU, an empty file under `_indices/`, no error (lancedb/lancedb#3568, lance-format/lance#7423;
 * facebookexperimental/semcode#61 for the multi-worker case). Lance sizes the pool
 * `max(1, cpus - LANCE_IO_CORE_RESERVATION)` with a reservation of 2 and runs about
 * `(pool + 2) / 2` build workers, so a host with 2 or 3 CPUs gets one thread for one producer, and
 * a 4-CPU host two threads for two producers. With `LANCE_CPU_THREADS` = 4 there are 3 workers
 * and always a thread to spare, at the cost of a little oversubscription on small hosts. Larger
 * hosts (6 CPUs and up) already have a spare thread and are left alone, as is a value the user set.
 */
export function lanceRuntimeEnv(env: NodeJS.ProcessEnv, cpus: number): Record<string, string> {
  if (env.LANCE_CPU_THREADS?.trim()) return {};
  const pool = cpus - 2;
  return pool >= MIN_LANCE_CPU_THREADS ? {} : { LANCE_CPU_THREADS: String(MIN_LANCE_CPU_THREADS) };
}

/**
 * LanceDB's logging, unless the user set it: errors only. Its warnings (k-means leaving clusters
 * empty while it trains a vector index on fewer than 65,536 rows) are advice to whoever tunes the
 * index, printed into the user's terminal mid-search.
 */
export function lanceLogEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return env.LANCEDB_LOG?.trim() ? {} : { LANCEDB_LOG: 'error' };
}

/**
 * LanceDB requires apache-arrow's CommonJS build, about 200 modules that cost about 50 ms to load
 * in every process that searches; the package's single-file build exports the same API (the Node
 * build only adds stream adapters LanceDB does not use) and loads in about 12 ms. So the single
 * file is loaded first and entered in the require cache under the name LanceDB's require resolves
 * to. Where anything about this does not hold (another layout, arrow already loaded), nothing is
 * changed and LanceDB loads arrow as it ships.
 */
function preloadArrowBundle(): void {
  try {
    const fromLance = createRequire(createRequire(import.meta.url).resolve('@lancedb/lancedb'));
    const main = fromLance.resolve('apache-arrow');
    const bundle = path.join(path.dirname(main), 'Arrow.es2015.min.js');
    if (fromLance.cache[main] || !fs.existsSync(bundle)) return;
    fromLance(bundle);
    fromLance.cache[main] = fromLance.cache[bundle];
  } catch {
    // LanceDB loads arrow itself
  }
}

let lancePromise: Promise<LanceDb> | undefined;

/**
 * LanceDB is loaded on first use, so commands that never touch the index never pay for it. Its
 * native runtime reads its thread and log settings once, when it starts: they are set here, before.
 */
export function lance(): Promise<LanceDb> {
  if (!lancePromise) {
    Object.assign(process.env, lanceRuntimeEnv(process.env, os.availableParallelism()), lanceLogEnv(process.env));
    preloadArrowBundle();
    lancePromise = import('@lancedb/lancedb');
  }
  return lancePromise;
}

/** The folder the index database lives in (see `indexLocation`). */
export function indexDir(root: string): string {
  return indexLocation(root).dir;
}

/**
 * Run `fn` holding the index lock. Index writers (refresh, rebuild, embedding steps) serialize on
 * it and never on the corpus lock, so a long index build never makes a writer wait.
 */
export function withIndexLock<T>(root: string, fn: () => Promise<T> | T): Promise<T> {
  const { dir, lock } = indexLocation(root);
  return withLock({ path: lock, what: 'index', prepare: () => fs.mkdirSync(dir, { recursive: true }) }, () => fn());
}

/** The index database. */
export async function connectIndex(root: string): Promise<import('@lancedb/lancedb').Connection> {
  return (await lance()).connect(indexDir(root));
}

/** One table of the index database, undefined when it does not exist yet. */
export async function openTable(root: string, name: string): Promise<Table | undefined> {
  const db = await connectIndex(root);
  return (await db.tableNames()).includes(name) ? db.openTable(name) : undefined;
}

/**
 * Remove one table's files and nothing else of the database, so starting one table over (even a
 * corrupt one, which LanceDB may fail to drop) leaves the other tables alone.
 */
export function removeTableFiles(root: string, name: string): void {
  fs.rmSync(path.join(indexDir(root), `${name}.lance`), { recursive: true, force: true });
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Delete the rows of these note paths, a few hundred per filter to keep each filter short. */
export async function deletePaths(table: Table, paths: string[]): Promise<void> {
  for (let i = 0; i < paths.length; i += 500) {
    await table.delete(`path IN (${paths.slice(i, i + 500).map(sqlString).join(', ')})`);
  }
}

/** After this many incremental writes a table is compacted. */
export const COMPACT_AFTER_WRITES = 50;

/**
 * With this many rows not yet in a table's index, the table is optimized (which also folds them
 * into the index): LanceDB searches unindexed rows by flat scan, so they cost every query.
 */
export const OPTIMIZE_AFTER_ROWS = 2000;

/** How many rows of the table its index `name` does not cover yet (scanned beside it until optimized). */
export async function unindexedRows(table: Table, name: string): Promise<number> {
  return (await table.indexStats(name))?.numUnindexedRows ?? 0;
}

/** Fold the small fragments many incremental writes leave into few, and drop old table versions. */
export async function compact(table: Table): Promise<void> {
  await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
}

/**
 * Which version of a file `writeIndexJson` wrote: it replaces the file, never rewrites it in place,
 * so its inode, mtime and size tell one version from another.
 */
export function identityOf(st: fs.Stats): string {
  return `${st.ino}:${st.mtimeMs}:${st.size}`;
}

/** The identity of the file as it is now (see `identityOf`); undefined when there is none. */
export function fileIdentity(file: string): string | undefined {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st && identityOf(st);
}

/**
 * Replace a JSON file of the index atomically. The temporary file is made beside it, in the index
 * folder, which may be on another file system than the corpus (a per-host cache).
 */
export function writeIndexJson(file: string, value: unknown): void {
  replaceDerivedFile(file, JSON.stringify(value));
}
