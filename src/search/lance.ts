import fs from 'node:fs';
import path from 'node:path';
import { withLock } from '../corpus/lock/lock.js';
import { indexLocation } from './location.js';

export type LanceDb = typeof import('@lancedb/lancedb');
export type Table = import('@lancedb/lancedb').Table;

/**
 * LanceDB is loaded on first use, so commands that never touch the index never pay for it. Its
 * native runtime's settings are the process's, set up by `prepareProcess` (src/process.ts).
 */
export function lance(): Promise<LanceDb> {
  return import('@lancedb/lancedb');
}

/**
 * A query's answer as plain objects, one per row, read column by column: LanceDB's own
 * `toArray` gives rows whose every field is read through arrow's row proxies, which cost a search
 * about 0.6 ms more for 40 rows with their bodies.
 */
export async function plainRows<R>(query: { toArrow(): Promise<import('apache-arrow').Table> }): Promise<R[]> {
  const answer = await query.toArrow();
  const names = answer.schema.fields.map((f) => f.name);
  const columns = names.map((name) => answer.getChild(name)!.toArray() as ArrayLike<unknown>);
  const rows: R[] = [];
  for (let i = 0; i < answer.numRows; i++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < names.length; c++) row[names[c]] = columns[c][i];
    rows.push(row as R);
  }
  return rows;
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
    await table.delete(
      `path IN (${paths
        .slice(i, i + 500)
        .map(sqlString)
        .join(', ')})`,
    );
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

/**
 * Give a table the scalar indexes it lacks: on `path`, since a refresh deletes the rows of the
 * notes it changed by path, and without one each delete scans every row (about 5 ms at 50,000
 * notes; under 2 ms with it); and on `current`, where the table has it, since every search but one
 * into history keeps only current notes, and without one that filter read every row (a full-text
 * query took 8 ms at 50,000 notes instead of 6).
 */
export async function indexScalars(table: Table): Promise<void> {
  const ldb = await lance();
  const indexed = (await table.listIndices()).flatMap((i) => i.columns);
  if (!indexed.includes('path')) await table.createIndex('path', { config: ldb.Index.btree() });
  const hasCurrent = (await table.schema()).fields.some((f) => f.name === 'current');
  if (hasCurrent && !indexed.includes('current')) await table.createIndex('current', { config: ldb.Index.bitmap() });
}

/**
 * Fold the small fragments many incremental writes leave into few (and the rows added since into
 * the indexes), drop old table versions, and give a table made before them its scalar indexes.
 */
export async function compact(table: Table): Promise<void> {
  // LanceDB dates its versions by the system's clock, so this one is too.
  await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
  await indexScalars(table);
}
