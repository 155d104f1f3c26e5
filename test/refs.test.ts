import { describe, expect, it } from 'vitest';
import { mdFiles, snapshot, tempCorpus, zk } from './helpers/corpus.js';

// How people and agents name notes: a ref keeps naming the note it named yesterday.

describe('an undated slug names one subject on every date', () => {
  it('a second note with the same slug on another date is refused, naming the note and the way out', async () => {
    const root = tempCorpus();
    const first = await zk(['--root', root, '--json', 'write', 'judy', 'Judy', 'Judy paints.', '--date', '2026-11-01']);
    const before = snapshot(root);
    const again = await zk(['--root', root, 'write', 'judy', 'Judy again', 'Judy sails.', '--date', '2026-11-02']);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `error: a note named "judy" exists already: ${first.json.note.path} (add to it with \`merge judy\`, or pass --unique for a note of its own)`,
    );
    expect(snapshot(root)).toEqual(before);
    // `merge judy` keeps working, and --unique takes a slug free on every date.
    expect((await zk(['--root', root, 'merge', 'judy', 'She sails too.'])).code).toBe(0);
    const unique = await zk(['--root', root, '--json', 'write', 'judy', 'Judy again', '--date', '2026-11-02', '--unique']);
    expect(unique.json.note.path).toBe('20261102-judy-2.md');
  });

  it('a note that supersedes the holder may take its slug; the bare slug then names the current note', async () => {
    const root = tempCorpus();
    const old = await zk(['--root', root, '--json', 'write', 'project-atlas', 'Atlas deadline: 13 March', '--date', '2026-11-01']);
    const next = await zk([
      '--root',
      root,
      '--json',
      'write',
      'project-atlas',
      'Atlas deadline: 20 March',
      '--date',
      '2026-11-20',
      '--supersedes',
      'project-atlas',
    ]);
    expect(next.code).toBe(0);
    expect(next.json).toMatchObject({ action: 'superseded', target: { path: old.json.note.path } });
    const read = await zk(['--root', root, '--json', 'read', 'project-atlas']);
    expect(read.json.note.path).toBe(next.json.note.path);
    // History stays reachable by the full name.
    expect((await zk(['--root', root, '--json', 'read', old.json.note.path])).json.note.superseded_by).toBe(next.json.note.uuid);
  });

  it('notes written by hand (or on another host) that share a slug: the slug names the newest current one', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'kim', 'Kim', 'One.', '--date', '2026-11-01']);
    await zk(['--root', root, 'write', 'kim', 'Kim', 'Two.', '--date', '2026-11-02', '--unique']);
    // By hand: a second kim on another date.
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${root}/20261103-kim.md`, '# Kim by hand\n');
    const r = await zk(['--root', root, '--json', 'read', 'kim']);
    expect(r.code).toBe(0);
    expect(r.json.note.path).toBe('20261103-kim.md');
    expect((await zk(['--root', root, '--json', 'read', '20261101-kim'])).json.note.path).toBe('20261101-kim.md');
    expect(mdFiles(root)).toHaveLength(3);
  });
});

describe('a ref is slugged the way write slugs a title', () => {
  it('finds notes by their titles as typed: other scripts, capitals, accents', async () => {
    const root = tempCorpus();
    const tokyo = await zk(['--root', root, '--json', 'write', '東京 2026', '東京 2026', 'Trip.']);
    const cafe = await zk(['--root', root, '--json', 'write', 'Café Crème', 'Café Crème', 'Coffee.']);
    const judy = await zk(['--root', root, '--json', 'write', 'judy', 'Judy', 'Paints.']);
    for (const [ref, note] of [
      ['東京 2026', tokyo],
      ['Café Crème', cafe],
      ['Judy', judy],
      ['  judy ', judy],
    ] as const) {
      const r = await zk(['--root', root, '--json', 'read', ref]);
      expect(r.json?.note.path, ref).toBe(note.json.note.path);
    }
  });

  it('a short hex ref is told that a uuid prefix needs 8 digits', async () => {
    const root = tempCorpus();
    const r = await zk(['--root', root, 'read', '6606bda']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: unknown ref: 6606bda (a uuid prefix needs at least 8 hex digits)');
  });
});
