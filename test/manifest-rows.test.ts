import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ManifestRows, manifestPath, writeManifest, type FileState, type Manifest } from '../src/search/manifest.js';
import { tempCorpus } from './helpers/corpus.js';

const state = (i: number, hash = `${i}`.padStart(16, 'a')): FileState => ({ mtimeMs: 1764000000000.25 + i, size: 100 + i, hash, ctimeMs: 1764000000001.5 + i, ino: 4000 + i, unsure: i % 3 === 0 });

describe("a warm process's kept manifest rows", () => {
  it('write the file a cold write does, as states are replaced, added and removed', () => {
    const root = tempCorpus();
    const manifest: Manifest = { files: new Map(), refreshes: 2, builtAt: '2026-12-01T10:00:00.000Z', refreshedAt: '2026-12-02T10:00:00.000Z' };
    for (let i = 0; i < 50; i++) manifest.files.set(`20261201-note-${i}.md`, state(i));
    manifest.files.set('20261201-"quoted" \\ name.md', state(99));
    const rows = new ManifestRows();
    const both = () => {
      writeManifest(root, manifest);
      const cold = JSON.parse(fs.readFileSync(manifestPath(root), 'utf8'));
      writeManifest(root, manifest, rows);
      expect(JSON.parse(fs.readFileSync(manifestPath(root), 'utf8'))).toEqual(cold);
      return cold;
    };
    expect(both().files).toHaveLength(51);
    // A refresh replaces a changed note's state, adds a note, removes one.
    manifest.files.set('20261201-note-7.md', state(7, 'ffffffffffffffff'));
    manifest.files.set('20261202-new.md', state(60));
    manifest.files.delete('20261201-note-3.md');
    manifest.refreshes = 3;
    const after = both();
    expect(after.refreshes).toBe(3);
    expect(after.files.find((r: unknown[]) => r[0] === '20261201-note-7.md')[3]).toBe('ffffffffffffffff');
    expect(after.files.map((r: unknown[]) => r[0])).not.toContain('20261201-note-3.md');
  });
});
