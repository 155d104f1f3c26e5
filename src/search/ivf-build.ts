import fs from 'node:fs';
import { prepareProcess } from '../process.js';

// A process of its own that trains a table's approximate vector index (see `trainAnnIndex` in
// src/search/vector.ts). Lance shuffles the vectors through a `.tmpXXXXXX` folder of the temporary
// folder and does not remove it, and it finds that folder only through the environment: run here,
// with its own TMPDIR, the build's scratch space is a folder the caller removes, and no other call
// of the caller's process ever sees a changed environment.
// usage: node ivf-build.js DB_DIR TABLE COLUMN CONFIG_JSON

prepareProcess();
const [dir, tableName, column, configJson] = process.argv.slice(2);
try {
  const ldb = await import('@lancedb/lancedb');
  const table = await (await ldb.connect(dir)).openTable(tableName);
  await table.createIndex(column, { config: ldb.Index.ivfPq(JSON.parse(configJson)), replace: true });
} catch (err) {
  fs.writeSync(2, `${(err as Error).message ?? String(err)}\n`);
  process.exitCode = 1;
}
