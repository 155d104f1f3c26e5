import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdFiles, tempCorpus, write, zk, zkProcess } from './helpers/corpus.js';

// How a search knows what changed without checking every note file: the change journal the
// tool's own writes append to, the root folder's metadata, and the full check when it is due.
// ZK_MEMORY_INDEX_SCAN_BELOW=0 makes these small corpora take the path large ones take.
const journalOnly = { ZK_MEMORY_INDEX_SCAN_BELOW: '0', ZK_MEMORY_INDEX_SCAN_SECONDS: '3600' };

async function titles(root: string, query: string, env: Record<string, string> = journalOnly, clock?: () => number): Promise<string[]> {
  const r = await zk(['--root', root, '--json', 'search', query, '--backend', 'fts'], { env, clock });
  return (r.json?.hits ?? []).map((h: any) => h.title);
}

function seedCorpus(): string {
  const root = tempCorpus();
  write(root, '20260101-lake.md', '---\nuuid: 11111111-1111-4111-8111-111111111111\ntitle: Lake\ndate: 2026-01-01\n---\n\n# Lake\n\nA walk by the lake.\n');
  write(root, '20260102-hill.md', '---\nuuid: 22222222-2222-4222-8222-222222222222\ntitle: Hill\ndate: 2026-01-02\n---\n\n# Hill\n\nA climb up the hill.\n');
  return root;
}

const journal = (root: string) =>
  fs
    .readFileSync(path.join(root, '.zk', 'index', 'changes.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('search freshness without a full check', () => {
  it('finds what another process of the tool wrote: created and merged notes are in the journal', async () => {
    const root = seedCorpus();
    expect(await titles(root, 'lake')).toEqual(['Lake']);
    const w = await zkProcess(['--root', root, 'write', 'okapi', 'Okapi', 'An okapi at the zoo.']);
    expect(w.code).toBe(0);
    expect(await titles(root, 'okapi')).toEqual(['Okapi']);
    expect((await zkProcess(['--root', root, 'merge', '20260102-hill.md', 'Quinces grow on the hill.'])).code).toBe(0);
    expect(await titles(root, 'quinces')).toEqual(['Hill']);
    expect(journal(root)).toEqual(expect.arrayContaining([expect.stringMatching(/-okapi\.md$/), '20260102-hill.md']));
  });

  it('finds notes added, removed and renamed by other programs from the root folder alone', async () => {
    const root = seedCorpus();
    expect(await titles(root, 'lake')).toEqual(['Lake']);
    write(root, '20260103-fen.md', '# Fen\n\nHerons in the fen.\n');
    expect(await titles(root, 'herons')).toEqual(['Fen']);
    fs.rmSync(path.join(root, '20260101-lake.md'));
    expect(await titles(root, 'lake')).toEqual([]);
    fs.renameSync(path.join(root, '20260103-fen.md'), path.join(root, '20260104-marsh.md'));
    const r = await zk(['--root', root, '--json', 'search', 'herons', '--backend', 'fts'], { env: journalOnly });
    expect(r.json.hits.map((h: any) => h.path)).toEqual(['20260104-marsh.md']);
  });

  it('finds a note an editor saved by writing a new file and renaming it over the old one', async () => {
    const root = seedCorpus();
    expect(await titles(root, 'lake')).toEqual(['Lake']);
    const tmp = path.join(root, '.lake.md.swp');
    fs.writeFileSync(tmp, fs.readFileSync(path.join(root, '20260101-lake.md'), 'utf8').replace('walk', 'swim with otters'));
    fs.renameSync(tmp, path.join(root, '20260101-lake.md'));
    expect(await titles(root, 'otters')).toEqual(['Lake']);
  });

  it('finds an in-place edit by another program once the full check is due, and at once with `index`', async () => {
    const root = seedCorpus();
    // The calls' clock, moved on instead of sleeping until the root folder is old enough to trust.
    let ahead = 0;
    const clock = () => Date.now() + ahead;
    expect(await titles(root, 'lake', journalOnly, clock)).toEqual(['Lake']);
    // Appended in place: no folder metadata moves, and the journal does not know.
    fs.appendFileSync(path.join(root, '20260102-hill.md'), '\nBadgers live here.\n');
    expect(await titles(root, 'badgers', { ...journalOnly, ZK_MEMORY_INDEX_SCAN_SECONDS: '0' }, clock)).toEqual(['Hill']);
    // Once a full check has seen the root folder long enough after its last change to trust it, a
    // search between full checks answers from the journal and the folder alone: the setting's trade.
    ahead += 2100;
    expect(await titles(root, 'badgers', { ...journalOnly, ZK_MEMORY_INDEX_SCAN_SECONDS: '0' }, clock)).toEqual(['Hill']);
    fs.appendFileSync(path.join(root, '20260101-lake.md'), '\nPikes live here.\n');
    expect(await titles(root, 'pikes', journalOnly, clock)).toEqual([]);
    expect((await zk(['--root', root, '--json', 'index'], { env: journalOnly, clock })).json).toMatchObject({ changed: 1 });
    expect(await titles(root, 'pikes', journalOnly, clock)).toEqual(['Lake']);
  });

  it('every search checks every note file of a small corpus, even between full checks', async () => {
    const root = seedCorpus();
    // The calls' clock, moved on instead of sleeping until the root folder is old enough to trust.
    let ahead = 0;
    const clock = () => Date.now() + ahead;
    const between = { ZK_MEMORY_INDEX_SCAN_SECONDS: '3600' };
    expect(await titles(root, 'lake', between, clock)).toEqual(['Lake']);
    // As above: the root folder is trusted once a check saw it long enough after its last change,
    // so only the corpus's size makes this search check every note.
    ahead += 2100;
    expect(await titles(root, 'lake', { ZK_MEMORY_INDEX_SCAN_SECONDS: '0' }, clock)).toEqual(['Lake']);
    fs.appendFileSync(path.join(root, '20260102-hill.md'), '\nBadgers live here.\n');
    expect(await titles(root, 'badgers', between, clock)).toEqual(['Hill']);
    expect(await titles(root, 'badgers', {}, clock)).toEqual(['Hill']);
  });

  it('a full check that finds every note as last recorded reads no manifest, and marks left from an older manifest are not trusted', async () => {
    const root = seedCorpus();
    // A clock a minute ahead: the notes just written look settled, so their stamps vouch for them.
    const later = () => Date.now() + 60_000;
    const hill = path.join(root, '20260102-hill.md');
    const marks = path.join(root, '.zk', 'index', 'marks.json');
    const manifest = path.join(root, '.zk', 'index', 'manifest.json');
    // A note that cannot be indexed (not text) is in every scan but never in the manifest: the
    // marks record what the scan saw, so after one search it costs no manifest read either.
    fs.writeFileSync(path.join(root, '20260103-binary.md'), Buffer.from([0x68, 0x69, 0x00, 0x01]));
    expect(await titles(root, 'hill', {}, later)).toEqual(['Hill']);
    expect(await titles(root, 'hill', {}, later)).toEqual(['Hill']);
    const fresh = async () => (await zk(['--root', root, '--json', 'status'], { clock: later })).json.index;
    expect(await fresh()).toMatchObject({ exists: true, fresh: true, pending: 0 });
    // A manifest blanked in place (same file, size and mtime to the nanosecond, which `cp -p` and
    // `touch -r` keep) is not read on an unchanged corpus: the marks' digest vouches for every
    // note. Were it read, the index would be rebuilt and the manifest written anew.
    const keep = (from: string, to: string) => execFileSync('cp', ['-p', from, to]);
    const saved = `${manifest}.saved`;
    keep(manifest, saved);
    const blank = `${manifest}.blank`;
    fs.writeFileSync(blank, ' '.repeat(fs.statSync(manifest).size));
    execFileSync('touch', ['-r', manifest, blank]);
    keep(blank, manifest);
    expect(await titles(root, 'hill', {}, later)).toEqual(['Hill']);
    expect(fs.readFileSync(manifest, 'utf8').trim()).toBe('');
    keep(saved, manifest);
    // An edit refreshes the index; then the marks are put back as they were before it (as if the
    // refresh had died between writing the manifest and the marks), and the note is restored from
    // a copy with its old size and mtime, as a backup restore does: it still differs from what the
    // index holds, and the stale marks must not vouch for it.
    const backup = `${hill}.backup`;
    keep(hill, backup);
    const oldMarks = fs.readFileSync(marks);
    fs.writeFileSync(hill, fs.readFileSync(hill, 'utf8').replace('A climb', 'Ibexes'));
    expect(await fresh()).toMatchObject({ fresh: false, pending: 1 });
    expect(await titles(root, 'ibexes', {}, later)).toEqual(['Hill']);
    fs.writeFileSync(marks, oldMarks);
    keep(backup, hill);
    expect(await titles(root, 'ibexes', {}, later)).toEqual([]);
    expect(await titles(root, 'climb', {}, later)).toEqual(['Hill']);
  });

  it('keeps no journal where there is no index yet, and a lost journal means a full check', async () => {
    const root = seedCorpus();
    await zk(['--root', root, 'write', 'okapi', 'Okapi', 'An okapi.']);
    expect(fs.existsSync(path.join(root, '.zk', 'index'))).toBe(false);
    expect(await titles(root, 'okapi')).toEqual(['Okapi']);
    fs.rmSync(path.join(root, '.zk', 'index', 'changes.jsonl'));
    fs.appendFileSync(path.join(root, '20260102-hill.md'), '\nBadgers live here.\n');
    expect(await titles(root, 'badgers')).toEqual(['Hill']);
    expect(mdFiles(root)).toHaveLength(3);
  });
});

// An edit that keeps a note's size and mtime: `sed -i` plus `touch -r`, rsync and sync tools that
// copy mtimes, or any same-size edit within one tick of a coarse clock.
describe('same-size edits that keep the mtime', () => {
  /** Replace `from` by `to` (same length) in a note and put its old mtime back, as `touch -r` does. */
  function editKeepingMtime(file: string, from: string, to: string): void {
    const st = fs.statSync(file);
    const ref = `${file}.ref`;
    execFileSync('cp', ['-p', file, ref]);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(from, to));
    execFileSync('touch', ['-r', ref, file]);
    fs.rmSync(ref);
    expect(fs.statSync(file)).toMatchObject({ size: st.size, mtimeMs: st.mtimeMs });
  }

  it('are found by search, index and status: the ctime moved', async () => {
    const root = seedCorpus();
    // A clock a minute ahead: every note looks long settled, so only its stamp can tell.
    const later = () => Date.now() + 60_000;
    const fts = async (q: string) =>
      (await zk(['--root', root, '--json', 'search', q, '--backend', 'fts'], { clock: later })).json.hits.map((h: any) => h.title);
    expect(await fts('climb')).toEqual(['Hill']);
    editKeepingMtime(path.join(root, '20260102-hill.md'), 'climb', 'ibexs');
    const status = await zk(['--root', root, '--json', 'status'], { clock: later });
    expect(status.json.index).toMatchObject({ fresh: false, pending: 1 });
    expect(await fts('ibexs')).toEqual(['Hill']);
    expect(await fts('climb')).toEqual([]);
    editKeepingMtime(path.join(root, '20260101-lake.md'), 'walk', 'wade');
    expect((await zk(['--root', root, '--json', 'index'], { clock: later })).json).toMatchObject({ changed: 1 });
    expect(await fts('wade')).toEqual(['Lake']);
  });

  // On a file system with 1 s timestamps (ext4 with 128-byte inodes), an edit in the same second
  // as the index's look leaves every field of the stat as it was: the index must not trust it.
  const canMount = process.getuid?.() === 0 && process.platform === 'linux' && hasCommand('mkfs.ext4');
  it.skipIf(!canMount)('are found on a file system with 1 s timestamps, when made in the same second', async () => {
    const dir = tempCorpus(false);
    const image = path.join(dir, 'fs.img');
    const mnt = path.join(dir, 'mnt');
    fs.mkdirSync(mnt);
    fs.closeSync(fs.openSync(image, 'w'));
    fs.truncateSync(image, 16 << 20);
    execFileSync('mkfs.ext4', ['-q', '-F', '-I', '128', image], { stdio: 'ignore' });
    execFileSync('mount', ['-o', 'loop', image, mnt]);
    try {
      const root = path.join(mnt, 'corpus');
      fs.mkdirSync(root);
      await zk(['init', root]);
      write(root, '20260101-lake.md', '---\ntitle: Lake\n---\n\nA walk by the lake.\n');
      const fts = async (q: string) => (await zk(['--root', root, '--json', 'search', q, '--backend', 'fts'])).json.hits.map((h: any) => h.title);
      expect(await fts('walk')).toEqual(['Lake']);
      let sameSecond = false;
      for (let attempt = 0; attempt < 5 && !sameSecond; attempt++) {
        // Start just after a second begins, so the note, the look and the edit share it.
        await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
        const file = path.join(root, `20260102-hill${attempt}.md`);
        const word = `crag${attempt}`;
        fs.writeFileSync(file, `---\ntitle: Hill ${attempt}\n---\n\nA ${word} on the hill.\n`);
        expect(await fts(word)).toEqual([`Hill ${attempt}`]);
        const before = fs.statSync(file);
        fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(word, `tor${attempt}x`));
        const after = fs.statSync(file);
        sameSecond = after.mtimeMs === before.mtimeMs && after.ctimeMs === before.ctimeMs;
        if (sameSecond) expect(await fts(`tor${attempt}x`)).toEqual([`Hill ${attempt}`]);
      }
      expect(sameSecond, 'an edit within the same second').toBe(true);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
