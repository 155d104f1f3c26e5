import fs from 'node:fs';
import path from 'node:path';
import { replaceFile } from '../corpus/files.js';
import { sidecar } from '../corpus/paths.js';

export type LanceDb = typeof import('@lancedb/lancedb');
export type Table = import('@lancedb/lancedb').Table;

let lancePromise: Promise<LanceDb> | undefined;

/** LanceDB is loaded on first use, so commands that never touch the index never pay for it. */
export function lance(): Promise<LanceDb> {
  lancePromise ??= import('@lancedb/lancedb');
  return lancePromise;
}

/** The index database under `.zk/index/`. */
export async function connectIndex(root: string): Promise<import('@lancedb/lancedb').Connection> {
  return (await lance()).connect(sidecar(root).index);
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
  fs.rmSync(path.join(sidecar(root).index, `${name}.lance`), { recursive: true, force: true });
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

/** Fold the small fragments many incremental writes leave into few, and drop old table versions. */
export async function compact(table: Table): Promise<void> {
  await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
}

/** Replace a JSON file of the index atomically. */
export function writeIndexJson(root: string, file: string, value: unknown): void {
  replaceFile(root, file, JSON.stringify(value));
}
