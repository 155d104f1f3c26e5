import fs from 'node:fs';
import path from 'node:path';
import * as ldb from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import { COMPACT_AFTER_WRITES, OPTIMIZE_AFTER_ROWS } from '../src/search/lance.js';
import { tempCorpus, write, zk } from './helpers/corpus.js';

// The full-text table's upkeep (src/search/fts-table.ts, src/search/lance.ts): scalar indexes on
// the notes' paths (for the deletes every refresh makes) and on which notes are current (for every
// search), compaction after many small refreshes, and the rows of a large refresh folded into the
// indexes.

const note = (i: number, body: string) => `---\nuuid: 00000000-0000-4000-8000-${String(i).padStart(12, '0')}\n---\n# Note ${i}\n\n${body}\n`;

async function notesTable(root: string) {
  return (await ldb.connect(path.join(root, '.zk', 'index'))).openTable('notes');
}

const paths = (root: string, query: string) =>
  zk(['--root', root, '--json', 'search', query, '--backend', 'fts']).then((r) => r.json.hits.map((h: any) => h.path));

describe('the full-text table', () => {
  it('is built with indexes on the paths and on which notes are current; one made without them gets them back when many small refreshes compact it', async () => {
    const root = tempCorpus();
    for (let i = 0; i < 3; i++) write(root, `20260101-note-${i}.md`, note(i, `Plain words ${i}.`));
    expect((await zk(['--root', root, 'index', '--rebuild'])).code).toBe(0);
    let table = await notesTable(root);
    const scalarIndexes = async () =>
      (await table.listIndices())
        .flatMap((i) => i.columns)
        .filter((c) => c === 'path' || c === 'current')
        .sort();
    expect(await scalarIndexes()).toEqual(['current', 'path']);
    await table.dropIndex('path_idx');
    await table.dropIndex('current_idx');
    expect(await scalarIndexes()).toEqual([]);
    table.close();
    for (let i = 0; i < COMPACT_AFTER_WRITES; i++) {
      fs.appendFileSync(path.join(root, '20260101-note-1.md'), `Word${i}x.\n`);
      expect(await paths(root, `word${i}x`)).toEqual(['20260101-note-1.md']);
    }
    table = await notesTable(root);
    expect(await scalarIndexes()).toEqual(['current', 'path']);
    expect(await table.countRows()).toBe(3);
    table.close();
  });

  it('finds only current notes through its index on them, however notes were superseded since it was built', async () => {
    const root = tempCorpus();
    write(root, '20260101-old.md', note(1, 'Harbour lighthouse keeper.'));
    write(root, '20260101-new.md', note(2, 'Harbour lighthouse keeper, again.'));
    expect((await zk(['--root', root, 'index', '--rebuild'])).code).toBe(0);
    const table = await notesTable(root);
    expect((await table.listIndices()).flatMap((i) => i.columns)).toContain('current');
    table.close();
    expect((await paths(root, 'harbour lighthouse')).sort()).toEqual(['20260101-new.md', '20260101-old.md']);
    const superseded = await zk(['--root', root, 'supersede', '20260101-old.md', '--by', '20260101-new.md']);
    expect(superseded.code, superseded.stderr).toBe(0);
    expect(await paths(root, 'harbour lighthouse')).toEqual(['20260101-new.md']);
    const all = await zk(['--root', root, '--json', 'search', 'harbour lighthouse', '--backend', 'fts', '--history']);
    expect(all.json.hits.map((h: any) => h.path).sort()).toEqual(['20260101-new.md', '20260101-old.md']);
  });

  it('folds the rows of a large refresh into its indexes at once', async () => {
    const root = tempCorpus();
    write(root, '20260101-note-0.md', note(0, 'The first one.'));
    expect((await zk(['--root', root, 'index', '--rebuild'])).code).toBe(0);
    for (let i = 1; i <= OPTIMIZE_AFTER_ROWS; i++) write(root, `20260102-note-${i}.md`, note(i, `Bulk words ${i}.`));
    expect(await paths(root, 'first')).toEqual(['20260101-note-0.md']);
    const table = await notesTable(root);
    expect(await table.countRows()).toBe(OPTIMIZE_AFTER_ROWS + 1);
    expect((await table.indexStats('body_idx'))?.numUnindexedRows).toBe(0);
    table.close();
  });
});
