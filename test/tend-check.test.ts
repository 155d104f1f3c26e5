import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempCorpus, write, zk } from './helpers/corpus.js';
import { noteText, UUID } from './tend-fixtures.js';

const MISSING_UUID = '99999999-0000-4000-8000-000000000000';

/** a.md holds one link of every kind, plus links that are not links (code, URLs). */
function mixedCorpus(): string {
  const root = tempCorpus();
  write(
    root,
    'a.md',
    noteText(UUID.a, 'A', [
      '## Setup steps', //                                             line 8
      '',
      '[plain](b.md)', //                                              line 10
      `[anchored](b.md) <!-- uuid: ${UUID.b} -->`,
      `[heading](b.md#deploy-notes) <!-- uuid: ${UUID.b} -->`,
      `[bad heading](b.md#nope) <!-- uuid: ${UUID.b} -->`,
      '[self](#setup-steps)',
      '[self bad](#missing)', //                                       line 15
      '[missing](nowhere.md)',
      `[mismatch](c.md) <!-- uuid: ${MISSING_UUID} -->`,
      'Not links: [web](https://example.org/b.md), [mail](mailto:x@example.org), `[inline](nowhere.md)`.',
      '```',
      '[fenced](nowhere.md)', //                                       line 20
      '```',
      '~~~md',
      '[tilde](nowhere.md)',
      '~~~',
      '````',
      '```',
      '[inside a longer fence](nowhere.md)',
      '```',
      '````',
    ]),
  );
  write(root, 'b.md', noteText(UUID.b, 'B', ['## Deploy notes', '', 'Text.']));
  write(root, 'c.md', noteText(UUID.c, 'C', ['Nothing here.']));
  return root;
}

const finding = (line: number, label: string, target: string, uuid: string | null, verdict: string, extra: object = {}) => ({
  file: 'a.md',
  line,
  label,
  target,
  form: 'inline',
  uuid,
  verdict,
  ...extra,
});

describe('tend check', () => {
  it('classifies every link with its line and ignores code, URLs and mail links', async () => {
    const root = mixedCorpus();
    const r = await zk(['tend', 'check', '--root', root, '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toEqual({
      ok: true,
      action: 'check',
      write: false,
      findings: [
        finding(10, 'plain', 'b.md', null, 'unanchored', { fix: { uuid: UUID.b } }),
        finding(11, 'anchored', 'b.md', UUID.b, 'ok'),
        finding(12, 'heading', 'b.md#deploy-notes', UUID.b, 'ok'),
        finding(13, 'bad heading', 'b.md#nope', UUID.b, 'broken', { reason: 'no heading #nope in b.md' }),
        finding(14, 'self', '#setup-steps', null, 'ok'),
        finding(15, 'self bad', '#missing', null, 'broken', { reason: 'no heading #missing in a.md' }),
        finding(16, 'missing', 'nowhere.md', null, 'broken', { reason: 'target missing' }),
        finding(17, 'mismatch', 'c.md', MISSING_UUID, 'broken', { reason: `uuid mismatch: c.md has uuid ${UUID.c}` }),
      ],
      counts: { ok: 3, stale: 0, broken: 4, unanchored: 1 },
      changed: 0,
      files: [],
      server: false,
    });
  });

  it('prints problems as file:line for people; unanchored links only with --strict', async () => {
    const root = mixedCorpus();
    const r = await zk(['tend', 'check', '--root', root]);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('a.md:'))).toEqual([
      `a.md:13: broken: [bad heading](b.md#nope) (no heading #nope in b.md)`,
      'a.md:15: broken: [self bad](#missing) (no heading #missing in a.md)',
      'a.md:16: broken: [missing](nowhere.md) (target missing)',
      `a.md:17: broken: [mismatch](c.md) (uuid mismatch: c.md has uuid ${UUID.c})`,
    ]);
    expect(r.stdout).toContain('8 links: 3 ok, 0 stale, 4 broken, 1 unanchored');
    const strict = await zk(['tend', 'check', '--strict', '--root', root]);
    expect(strict.stdout).toContain(`a.md:10: unanchored: [plain](b.md) -> uuid ${UUID.b}`);
  });

  it('reports a link whose uuid now lives in another file as stale, with the fix', async () => {
    const root = tempCorpus();
    write(
      root,
      'a.md',
      noteText(UUID.a, 'A', [`See [B](old-b.md) <!-- uuid: ${UUID.b} --> and [B notes](old-b.md#deploy-notes)<!--uuid:${UUID.b.toUpperCase()}-->.`]),
    );
    write(root, 'b.md', noteText(UUID.b, 'B', ['## Deploy notes']));
    const r = await zk(['tend', 'check', '--root', root, '--json']);
    expect(r.code).toBe(1);
    expect(r.json.findings).toEqual([
      finding(8, 'B', 'old-b.md', UUID.b, 'stale', { reason: 'uuid now lives in b.md', fix: { target: 'b.md' } }),
      finding(8, 'B notes', 'old-b.md#deploy-notes', UUID.b, 'stale', { reason: 'uuid now lives in b.md', fix: { target: 'b.md#deploy-notes' } }),
    ]);
    expect(r.json.counts).toEqual({ ok: 0, stale: 2, broken: 0, unanchored: 0 });
  });

  it('reports links to archived notes: stale toward a live successor, broken without one', async () => {
    const root = tempCorpus();
    write(root, 'a.md', noteText(UUID.a, 'A', [`[old](old.md) <!-- uuid: ${UUID.old} -->`, '[old plain](old.md#details)', '[gone](gone.md)']));
    write(root, 'next.md', noteText(UUID.next, 'Next', ['## Details']));
    fs.mkdirSync(path.join(root, '.archive'));
    write(root, '.archive/old.md', noteText(UUID.old, 'Old', [], [`superseded_by: ${UUID.next}`]));
    write(root, '.archive/gone.md', noteText(UUID.gone, 'Gone', []));
    const r = await zk(['tend', 'check', '--root', root, '--json']);
    expect(r.code).toBe(1);
    const toNext = { reason: 'target archived; superseded by next.md' };
    expect(r.json.findings).toEqual([
      finding(8, 'old', 'old.md', UUID.old, 'stale', { ...toNext, fix: { target: 'next.md', uuid: UUID.next } }),
      finding(9, 'old plain', 'old.md#details', null, 'stale', { ...toNext, fix: { target: 'next.md#details', uuid: UUID.next } }),
      finding(10, 'gone', 'gone.md', null, 'broken', { reason: 'target archived as .archive/gone.md with no live successor' }),
    ]);
  });

  it('exits 0 on a clean corpus, and --strict fails on unanchored links', async () => {
    const root = tempCorpus();
    write(root, 'a.md', noteText(UUID.a, 'A', [`[B](b.md) <!-- uuid: ${UUID.b} -->`]));
    write(root, 'b.md', noteText(UUID.b, 'B', ['[A](a.md)']));
    const plain = await zk(['tend', 'check', '--root', root]);
    expect([plain.code, plain.stdout.trim().split('\n')[0]]).toEqual([0, '2 links: 1 ok, 0 stale, 0 broken, 1 unanchored']);
    const strict = await zk(['tend', 'check', '--strict', '--root', root, '--json']);
    expect(strict.code).toBe(1);
    expect(strict.json).toMatchObject({ ok: true, counts: { ok: 1, unanchored: 1 } });
    write(root, 'b.md', noteText(UUID.b, 'B', [`[A](a.md) <!-- uuid: ${UUID.a} -->`]));
    expect((await zk(['tend', 'check', '--strict', '--root', root])).code).toBe(0);
  });

  it('refuses bad usage with exit 2 and one line', async () => {
    const root = tempCorpus();
    const cases: [string[], string][] = [
      [['tend', 'fix'], 'error: unknown tend action: "fix" (one of check, mint, repair, robustify)'],
      [['tend', 'check', '--write'], 'error: tend check never writes; --write is for mint, repair and robustify'],
      [['tend', 'repair', '--strict'], 'error: --strict is for tend check'],
    ];
    for (const [args, message] of cases) {
      const r = await zk([...args, '--root', root]);
      expect([r.code, r.stderr]).toEqual([2, message]);
    }
    const j = await zk(['tend', 'fix', '--root', root, '--json']);
    expect(j.json).toEqual({ ok: false, error: { code: 'usage', message: 'unknown tend action: "fix" (one of check, mint, repair, robustify)' } });
  });
});
