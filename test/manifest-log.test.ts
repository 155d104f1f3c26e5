import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  manifestId,
  manifestLogPath,
  manifestPath,
  readManifest,
  recordManifestChange,
  writeManifest,
  type FileState,
  type KnownManifest,
  type Manifest,
} from '../src/search/manifest.js';
import { tempCorpus } from './helpers/corpus.js';

const state = (i: number, hash = `${i}`.padStart(16, 'a')): FileState => ({
  mtimeMs: 1764000000000.25 + i,
  size: 100 + i,
  hash,
  ctimeMs: 1764000000001.5 + i,
  ino: 4000 + i,
  unsure: i % 3 === 0,
});

function written(root: string, n: number): KnownManifest {
  const m: Manifest = { files: new Map(), refreshes: 2, builtAt: '2026-12-01T10:00:00.000Z', refreshedAt: '2026-12-02T10:00:00.000Z' };
  for (let i = 0; i < n; i++) m.files.set(`20261201-note-${i}.md`, state(i));
  m.files.set('20261201-"quoted" \\ name.md', state(99));
  return { ...m, id: writeManifest(root, m)! };
}

/** A refresh's change applied to `m` and recorded, as src/search/fts-table.ts does. */
function refresh(root: string, m: KnownManifest, set: [string, FileState][], del: string[]): void {
  for (const [name, f] of set) m.files.set(name, f);
  for (const name of del) m.files.delete(name);
  m.refreshes++;
  m.refreshedAt = new Date(Date.parse(m.refreshedAt) + 1000).toISOString();
  m.id = recordManifestChange(root, m, { set: set.map(([name]) => name), del })!;
}

/** A manifest's states by name (in name order, as it is written), and its figures. */
const plain = (m: Manifest | undefined) =>
  m && { files: [...m.files].sort(([a], [b]) => (a < b ? -1 : 1)), refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt };

/** The manifest was written whole as `m`: no log beside it. */
function writtenWhole(root: string, m: Manifest): void {
  expect(fs.existsSync(manifestLogPath(root))).toBe(false);
  expect(plain(readManifest(root))).toEqual(plain(m));
}

describe('the manifest and its log', () => {
  it('is written in name order, whatever order its states were set in: a resident process shares the names it lists with it', () => {
    const root = tempCorpus();
    const m = written(root, 12);
    const rows = JSON.parse(fs.readFileSync(manifestPath(root), 'utf8')).files.map((row: unknown[]) => row[0]);
    expect(rows).toHaveLength(13);
    expect(rows).toEqual([...m.files.keys()].sort());
    expect(rows).not.toEqual([...m.files.keys()]);
  });

  it('a refresh appends its change; reading base and log gives the manifest as changed, under the identity the files have', () => {
    const root = tempCorpus();
    const m = written(root, 50);
    const size = fs.statSync(manifestPath(root)).size;
    refresh(
      root,
      m,
      [
        ['20261201-note-7.md', state(7, 'ffffffffffffffff')],
        ['20261202-new.md', state(60)],
      ],
      ['20261201-note-3.md'],
    );
    refresh(root, m, [['20261201-note-8.md', state(8, 'eeeeeeeeeeeeeeee')]], []);
    // The manifest file was not written again: the changes are lines of the log.
    expect(fs.statSync(manifestPath(root)).size).toBe(size);
    expect(fs.readFileSync(manifestLogPath(root), 'utf8').split('\n')).toHaveLength(3);
    const read = readManifest(root)!;
    expect(plain(read)).toEqual(plain(m));
    expect(read.id).toBe(m.id);
    expect(manifestId(root)).toBe(m.id);
    expect(read.files.has('20261201-note-3.md')).toBe(false);
  });

  it('a line cut short ends what is read, and the next refresh writes the manifest whole instead of appending to it', () => {
    const root = tempCorpus();
    const m = written(root, 20);
    refresh(root, m, [['20261201-note-1.md', state(1, 'dddddddddddddddd')]], []);
    const whole = plain(readManifest(root));
    fs.appendFileSync(manifestLogPath(root), '{"base":"x","refreshes":9,"set":[["20261201-no');
    expect(plain(readManifest(root))).toEqual(whole);
    const logged = readManifest(root)!;
    refresh(root, logged, [['20261201-note-2.md', state(2, 'cccccccccccccccc')]], []);
    writtenWhole(root, logged);
  });

  it('lines of a log left beside a manifest written again are passed over; a manifest changed by another process is written whole', () => {
    const root = tempCorpus();
    const m = written(root, 10);
    refresh(root, m, [['20261201-note-1.md', state(1, 'bbbbbbbbbbbbbbbb')]], []);
    const log = fs.readFileSync(manifestLogPath(root));
    // Written whole again (a crash before its log went): the old log's line names another file.
    const again = written(root, 10);
    fs.writeFileSync(manifestLogPath(root), log);
    expect(readManifest(root)!.files.get('20261201-note-1.md')).toEqual(state(1));
    // A process holding the manifest as it was before another one changed it does not append to it.
    const stale: KnownManifest = { ...again, files: new Map(again.files) };
    const other = readManifest(root)!;
    refresh(root, other, [['20261201-note-4.md', state(4, '9999999999999999')]], []);
    refresh(root, stale, [['20261201-note-5.md', state(5, '8888888888888888')]], []);
    writtenWhole(root, stale);
  });

  it('the log is folded into the manifest once it outgrows an eighth of it (and 256 KB)', () => {
    const root = tempCorpus();
    const m = written(root, 100);
    let folded = 0;
    for (let i = 0; i < 3000 && !folded; i++) {
      refresh(root, m, [[`20261201-note-${i % 100}.md`, state(i % 100, `${i}`.padStart(16, 'f'))]], []);
      if (!fs.existsSync(manifestLogPath(root))) folded = i;
    }
    expect(folded).toBeGreaterThan(1000);
    expect(plain(readManifest(root))).toEqual(plain(m));
  });
});
