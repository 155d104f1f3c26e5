import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempCorpus, write, zk } from './helpers/corpus.js';

// `list` and `status` take note fields from a cache beside the index and read only the notes
// whose stat moved. The cache is derived: whatever happens to the notes or to it, they answer what
// the files say.

const cacheFile = (root: string) => path.join(root, '.zk', 'index', 'notes-meta.jsonl');

/** A cache file as its head line's fields, with `rows`: a row per line after the head. */
function readCache(file: string): any {
  const [head, ...rows] = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return { ...head, rows };
}

function writeCache(file: string, c: any): void {
  const { rows, ...head } = c;
  fs.writeFileSync(file, `${[head, ...rows].map((r) => JSON.stringify(r)).join('\n')}\n`);
}

function note(uuid: string, title: string, extra = ''): string {
  return `---\nuuid: ${uuid}\ntitle: ${title}\ndate: 2026-01-01\nkind: concept\n${extra}---\n\n# ${title}\n\nSome text.\n`;
}

// The calls' clock: moved on instead of sleeping until a stat is old enough to be trusted.
let ahead = 0;
const clock = () => Date.now() + ahead;
const settle = () => void (ahead += 2100);

const U = (n: number) => `${String(n).repeat(8)}-1111-4111-8111-111111111111`;

async function listed(root: string, ...flags: string[]): Promise<{ path: string; title: string; uuid: string; superseded_by: string | null }[]> {
  const r = await zk(['--root', root, '--json', 'list', ...flags], { clock });
  expect(r.code).toBe(0);
  return r.json.notes.map((n: any) => ({ path: n.path, title: n.title, uuid: n.uuid, superseded_by: n.superseded_by }));
}

async function statusOf(root: string) {
  const r = await zk(['--root', root, '--json', 'status'], { clock });
  expect(r.code).toBe(0);
  return { notes: r.json.notes, byKind: r.json.byKind, superseded: r.json.superseded };
}

function seed(): string {
  const root = tempCorpus();
  write(root, '20260101-appended.md', note(U(1), 'Appended'));
  write(root, '20260101-edited.md', note(U(2), 'Edited'));
  write(root, '20260101-renamed.md', note(U(3), 'Renamed'));
  write(root, '20260101-deleted.md', note(U(4), 'Deleted'));
  write(root, '20260101-kept.md', note(U(5), 'Kept'));
  return root;
}

/** Rewrite the cache's row of one note (its stat left as seen), as the cache would if it were trusted wrongly. */
function tamperTitle(root: string, name: string, title: string): void {
  const c = readCache(cacheFile(root));
  for (const row of c.rows) if (row[0] === name) row[5][1] = title;
  writeCache(cacheFile(root), c);
}

describe('the note metadata cache behind list and status', () => {
  it('answers what the files say after the tool writes and after notes are appended to, edited, renamed and deleted by hand', async () => {
    const root = seed();
    expect((await listed(root)).map((n) => n.title)).toEqual(['Appended', 'Deleted', 'Edited', 'Kept', 'Renamed']);
    expect(fs.existsSync(cacheFile(root))).toBe(true);
    // Stats seen less than 2 s after a change are not trusted; past that, unchanged notes come from the cache.
    settle();
    await listed(root);
    tamperTitle(root, '20260101-kept.md', 'From the cache');
    expect((await listed(root)).find((n) => n.path === '20260101-kept.md')?.title).toBe('From the cache');

    // By hand: appended to, edited in place with the same size and the mtime put back, renamed, deleted.
    fs.appendFileSync(path.join(root, '20260101-appended.md'), '\nMore text.\n');
    const edited = path.join(root, '20260101-edited.md');
    const before = fs.statSync(edited);
    fs.writeFileSync(edited, note(U(2), 'EDITED'));
    fs.utimesSync(edited, before.atime, before.mtime);
    fs.renameSync(path.join(root, '20260101-renamed.md'), path.join(root, '20260101-moved.md'));
    fs.rmSync(path.join(root, '20260101-deleted.md'));
    // By the tool: a new note, and one that supersedes another.
    expect((await zk(['--root', root, 'write', 'fresh', 'Fresh', 'Newly written.', '--kind', 'decision'])).code).toBe(0);
    expect((await zk(['--root', root, 'write', 'kept-2', 'Kept again', 'Replaces it.', '--supersedes', '20260101-kept.md'])).code).toBe(0);

    const notes = await listed(root, '--history');
    expect(notes.map((n) => n.title).sort()).toEqual(['Appended', 'EDITED', 'Fresh', 'Kept', 'Kept again', 'Renamed']);
    expect(notes.find((n) => n.path === '20260101-moved.md')?.uuid).toBe(U(3));
    expect(notes.find((n) => n.path === '20260101-kept.md')?.superseded_by).toBeTruthy();
    expect((await listed(root)).map((n) => n.title).sort()).toEqual(['Appended', 'EDITED', 'Fresh', 'Kept again', 'Renamed']);
    expect(await statusOf(root)).toEqual({ notes: 6, byKind: { concept: 4, entity_update: 0, decision: 1, none: 1 }, superseded: 1 });
    // The cache now holds exactly the notes on disk.
    const rows = readCache(cacheFile(root))
      .rows.map((r: unknown[]) => r[0])
      .sort();
    expect(rows).toEqual(
      fs
        .readdirSync(root)
        .filter((f) => f.endsWith('.md'))
        .sort(),
    );
  });

  it('rebuilds a damaged, truncated or foreign cache from the files', async () => {
    const root = seed();
    const expected = await listed(root);
    for (const damage of ['{"version":1,"seenAt":0,"rows":[["x"', 'not json', '{"version":1,"seenAt":0,"rows":[[1,2,3]]}', '{"version":99,"rows":[]}', '']) {
      fs.writeFileSync(cacheFile(root), damage);
      expect(await listed(root)).toEqual(expected);
      expect(readCache(cacheFile(root)).rows).toHaveLength(5);
    }
    // A cache the listing would trust but for its version: its rows are not taken (each carries a
    // title the file does not have); one row of a shape no version has: that row is not taken.
    settle();
    await listed(root);
    const good = fs.readFileSync(cacheFile(root), 'utf8');
    // A row's line damaged, the last line cut short: those notes are read again, and the cache rewritten whole.
    const lines = good.split('\n');
    fs.writeFileSync(cacheFile(root), [lines[0], 'not json', ...lines.slice(2, -2), lines.at(-2)!.slice(0, 20)].join('\n'));
    expect(await listed(root)).toEqual(expected);
    expect(readCache(cacheFile(root)).rows).toHaveLength(5);
    // The cache as earlier versions kept it, one JSON document: left alone, and removed once the cache is written.
    const earlier = cacheFile(root).replace(/l$/, '');
    fs.writeFileSync(earlier, '{"version":5,"seenAt":0,"rows":[]}');
    fs.rmSync(cacheFile(root));
    expect(await listed(root)).toEqual(expected);
    expect(fs.existsSync(earlier)).toBe(false);
    const forged = (edit: (c: any) => void) => {
      const c = readCache(cacheFile(root));
      for (const row of c.rows) row[5][1] = 'From a forged cache';
      edit(c);
      writeCache(cacheFile(root), c);
    };
    forged((c) => {
      c.version = 1;
    });
    expect(await listed(root)).toEqual(expected);
    forged((c) => {
      c.rows[0].push('a column no version has');
    });
    expect(await listed(root)).toEqual(expected.map((n, i) => (i === 0 ? n : { ...n, title: 'From a forged cache' })));
    fs.rmSync(cacheFile(root));
    fs.mkdirSync(cacheFile(root)); // not even a file: the notes are read, and nothing is kept
    expect(await listed(root)).toEqual(expected);
    expect((await statusOf(root)).notes).toBe(5);
  });

  it('keeps warning about a note with invalid frontmatter on every listing', async () => {
    const root = seed();
    write(root, '20260101-broken.md', '---\ntitle: [unclosed\n---\n\nBody.\n');
    // Old enough to be trusted: only its invalid frontmatter keeps it out of the cache.
    settle();
    for (let i = 0; i < 2; i++) {
      const r = await zk(['--root', root, '--json', 'list'], { clock });
      expect(r.json.notes).toHaveLength(6);
      expect(r.stderr).toMatch(/20260101-broken\.md: invalid frontmatter/);
    }
    expect(readCache(cacheFile(root)).rows.map((r: unknown[]) => r[0])).not.toContain('20260101-broken.md');
  });
});

describe('the link facts cache behind tend check', () => {
  const factsFile = (root: string) => path.join(root, '.zk', 'index', 'notes-links.jsonl');
  const check = async (root: string) => {
    const r = await zk(['--root', root, '--json', 'tend', 'check'], { clock });
    return r.json.findings.map((f: any) => `${f.file} ${f.target} ${f.verdict}`);
  };

  it('reads only changed notes, and still judges every link against the corpus as it is now', async () => {
    const root = tempCorpus();
    write(root, '20260101-a.md', note(U(1), 'A').replace('Some text.', `See [B](20260101-b.md#part) <!-- uuid: ${U(2)} -->.`));
    write(root, '20260101-b.md', note(U(2), 'B').replace('Some text.', '## Part\n\nText.'));
    expect(await check(root)).toEqual([`20260101-a.md 20260101-b.md#part ok`]);
    settle();
    await check(root);
    // Unchanged notes come from the cache: a row altered there (its stat left as seen) is believed.
    const c = readCache(factsFile(root));
    for (const row of c.rows) if (row[0] === '20260101-a.md') row[5][4][0][12] = 'from-the-cache.md'; // the link as written
    writeCache(factsFile(root), c);
    expect(await check(root)).toEqual([`20260101-a.md from-the-cache.md ok`]);
    writeCache(factsFile(root), { ...c, rows: c.rows.map((r: any) => (r[0] === '20260101-a.md' ? { damaged: true } : r)) });
    expect(await check(root)).toEqual([`20260101-a.md 20260101-b.md#part ok`]);

    // The link's note is unchanged, but its target moves away and back, then loses its heading and gets it back.
    settle();
    await check(root);
    const b = path.join(root, '20260101-b.md');
    fs.renameSync(b, path.join(root, '20260102-b.md'));
    expect(await check(root)).toEqual([`20260101-a.md 20260101-b.md#part stale`]);
    fs.renameSync(path.join(root, '20260102-b.md'), b);
    expect(await check(root)).toEqual([`20260101-a.md 20260101-b.md#part ok`]);
    fs.writeFileSync(b, note(U(2), 'B'));
    expect(await check(root)).toEqual([`20260101-a.md 20260101-b.md#part broken`]);
    fs.writeFileSync(b, note(U(2), 'B').replace('Some text.', '## Part\n\nText.'));
    expect(await check(root)).toEqual([`20260101-a.md 20260101-b.md#part ok`]);
    // A link appended by hand to the cached note is seen.
    fs.appendFileSync(path.join(root, '20260101-a.md'), '\n[gone](nowhere.md)\n');
    expect(await check(root)).toEqual([`20260101-a.md 20260101-b.md#part ok`, `20260101-a.md nowhere.md broken`]);
  });
});
