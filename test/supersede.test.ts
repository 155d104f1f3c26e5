import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshot, tempCorpus, write, zk } from './helpers/corpus.js';
import { expectMomentSince } from './helpers/moments.js';

async function judy(root: string) {
  const london = await zk(['--root', root, '--json', 'write', 'judy-london', 'Judy lives in London', 'Judy lives in London, near the river.']);
  const paris = await zk([
    '--root',
    root,
    '--json',
    'write',
    'judy-paris',
    'Judy moved to Paris',
    'Judy moved to Paris in October.',
    '--supersedes',
    london.json.note.uuid,
  ]);
  return { london: london.json.note, paris: paris.json };
}

describe('supersession', () => {
  it.each(['rg', 'fts'])('search shows the current belief only, --history both (%s)', async (backend) => {
    const root = tempCorpus();
    const { london, paris } = await judy(root);
    expect(paris).toMatchObject({ ok: true, action: 'superseded', target: { path: london.path, superseded_by: paris.note.uuid } });
    const now = await zk(['--root', root, '--json', 'search', 'judy', '--backend', backend]);
    expect(now.json.hits.map((h: any) => h.path)).toEqual([paris.note.path]);
    const all = await zk(['--root', root, '--json', 'search', 'judy', '--history', '--backend', backend]);
    const status = Object.fromEntries(all.json.hits.map((h: any) => [h.path, h.superseded_by]));
    expect(status).toEqual({ [london.path]: paris.note.uuid, [paris.note.path]: null });
    const list = await zk(['--root', root, '--json', 'list']);
    expect(list.json.notes.map((n: any) => n.path)).toEqual([paris.note.path]);
  });

  it('read of the old note names what replaced it; the JSON carries the chain', async () => {
    const root = tempCorpus();
    const { london, paris } = await judy(root);
    const berlin = await zk(['--root', root, '--json', 'write', 'judy-berlin', 'Judy moved to Berlin', 'Now Berlin.']);
    const s = await zk(['--root', root, '--json', 'supersede', paris.note.slug, '--by', berlin.json.note.slug]);
    expect(s.json).toMatchObject({ ok: true, action: 'superseded', old: { path: paris.note.path }, new: { path: berlin.json.note.path } });
    const text = await zk(['--root', root, 'read', london.path]);
    expect(text.stdout.split('\n')[0]).toBe(
      `note: superseded by ${paris.note.path} (Judy moved to Paris); current: ${berlin.json.note.path} (Judy moved to Berlin)`,
    );
    const json = await zk(['--root', root, '--json', 'read', london.path]);
    expect(json.json.chain.map((n: any) => n.path)).toEqual([paris.note.path, berlin.json.note.path]);
    expect(json.json.note.superseded_by).toBe(paris.note.uuid);
    const b = await zk(['--root', root, '--json', 'read', berlin.json.note.path]);
    expect(b.json.note.supersedes).toEqual([paris.note.uuid]);
  });

  it('rewrites only the frontmatter key it sets, every other byte kept (BOM and CRLF too)', async () => {
    const root = tempCorpus();
    const oldText =
      '---\r\ntitle: "Hand, quoted"\r\ncustom: [a, b]   # keep me\r\nuuid: 33333333-3333-3333-3333-333333333333\r\n---\r\n# Hand\r\nOld claim.\r\n';
    write(root, 'hand.md', oldText);
    const noFm = '# Bare\r\n\r\nNew claim.\r\n';
    write(root, 'bare.md', `\uFEFF${noFm}`);
    const started = Date.now();
    const r = await zk(['--root', root, '--json', 'supersede', 'hand', '--by', 'bare']);
    expect(r.code).toBe(0);
    const newUuid = r.json.new.uuid;
    expect(newUuid).toMatch(/^[0-9a-f-]{36}$/);
    // superseded_at lands beside superseded_by, in the same replacement.
    const hand = fs.readFileSync(path.join(root, 'hand.md'), 'utf8');
    const at = /\r\nsuperseded_at: (\S+)\r\n/.exec(hand)?.[1];
    expectMomentSince(at, started);
    expect(hand).toBe(oldText.replace('---\r\n# Hand', `superseded_by: ${newUuid}\r\nsuperseded_at: ${at}\r\n---\r\n# Hand`));
    expect(fs.readFileSync(path.join(root, 'bare.md'), 'utf8')).toBe(
      `\uFEFF---\r\nuuid: ${newUuid}\r\nsupersedes:\r\n  - 33333333-3333-3333-3333-333333333333\r\n---\r\n${noFm}`,
    );
  });

  it('a belief replaced again and again under its own slug on one day stays named by that slug', async () => {
    const root = tempCorpus();
    const at = ['--date', '2026-11-30'];
    const v1 = await zk(['--root', root, '--json', 'write', 'judy', 'Judy v1', 'One.', ...at]);
    const v2 = await zk(['--root', root, '--json', 'write', 'judy', 'Judy v2', 'Two.', '--supersedes', 'judy', ...at]);
    expect(v2.json.note.path).toBe('20261130-judy-2.md');
    const v3 = await zk(['--root', root, '--json', 'write', 'judy', 'Judy v3', 'Three.', '--supersedes', 'judy', ...at]);
    expect(v3.code, v3.stdout).toBe(0);
    expect(v3.json.note.path).toBe('20261130-judy-3.md');
    expect(v3.json.target.path).toBe('20261130-judy-2.md');
    const read = await zk(['--root', root, '--json', 'read', 'judy']);
    expect(read.json.note.path).toBe('20261130-judy-3.md');
    const old = await zk(['--root', root, '--json', 'read', v1.json.note.path]);
    expect(old.json.chain.map((n: { path: string }) => n.path)).toEqual(['20261130-judy-2.md', '20261130-judy-3.md']);
    // Another note still may not take the slug of a live subject.
    expect((await zk(['--root', root, 'write', 'judy', 'Judy again', 'x', ...at])).code).toBe(1);
  });

  it('refuses self-supersession, cycles, re-pointing and unknown refs, changing nothing', async () => {
    const root = tempCorpus();
    const { london, paris } = await judy(root);
    await zk(['--root', root, 'write', 'other', 'Other']);
    const before = snapshot(root, { skip: /^\.zk\// });
    const cases: [string[], number, string][] = [
      [['supersede', paris.note.slug, '--by', paris.note.slug], 1, `error: a note cannot supersede itself: ${paris.note.path}`],
      [['supersede', paris.note.slug, '--by', london.path], 1, `error: superseding ${paris.note.path} by ${london.path} would make a cycle`],
      [
        ['supersede', london.path, '--by', 'other'],
        1,
        `error: ${london.path} is already superseded by ${paris.note.path} (${paris.note.title}); supersede the current note instead: \`zk-memory supersede ${paris.note.path} --by NEW\``,
      ],
      [['supersede', 'nobody', '--by', 'other'], 1, 'error: unknown ref: nobody'],
      [['supersede', 'other'], 2, 'error: supersede needs --by NEW: the note that replaces OLD'],
      [['write', 'x', 'X', '--supersedes', 'nobody'], 1, 'error: unknown ref: nobody'],
      [
        ['write', 'x', 'X', '--supersedes', london.path],
        1,
        `error: ${london.path} is already superseded by ${paris.note.path} (${paris.note.title}); supersede the current note instead: \`zk-memory supersede ${paris.note.path} --by NEW\``,
      ],
    ];
    for (const [args, code, message] of cases) {
      const r = await zk(['--root', root, ...args]);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stderr.trim()).toBe(message);
    }
    expect(snapshot(root, { skip: /^\.zk\// })).toEqual(before);
  });
});
