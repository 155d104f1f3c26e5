import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { snapshot, tempCorpus, write, zk } from './helpers/corpus.js';
import { noteText, UUID } from './tend-fixtures.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.org',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.org',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: '/nonexistent',
};
const git = async (root: string, ...args: string[]) => String((await execa('git', args, { cwd: root, env: GIT_ENV })).stdout);

const SAMPLE_BODY = [
  'Ref style: [the target][t] and wiki: [[20261201-target]] and [[Target]] and broken wiki [[nope-note]] and parens [p](20261201-target(1).md).',
  '',
  '    indented code [ghost](ghost-indented.md)',
  '',
  '[t]: 20261201-target.md',
];

function sampleCorpus(): string {
  const root = tempCorpus();
  write(root, '20261201-target.md', noteText(UUID.b, 'Target', ['Body.']));
  write(root, '20261201-target(1).md', noteText(UUID.c, 'Target, take two', []));
  write(root, '20261201-sample.md', noteText(UUID.a, 'Sample', SAMPLE_BODY));
  return root;
}

type F = { target: string; form: string; verdict: string; reason?: string; line: number };

describe('the links people write', () => {
  it('check and read see the reference link, the wikilinks and the parenthesised link; nothing in indented code', async () => {
    const root = sampleCorpus();
    const check = await zk(['tend', 'check', '--root', root, '--json']);
    expect(check.json.findings.map((f: F) => [f.form, f.target, f.verdict, f.line])).toEqual([
      ['reference', '20261201-target.md', 'unanchored', 8],
      ['wiki', '20261201-target', 'unanchored', 8],
      ['wiki', 'Target', 'unanchored', 8],
      ['wiki', 'nope-note', 'broken', 8],
      ['inline', '20261201-target(1).md', 'unanchored', 8],
    ]);
    const text = await zk(['tend', 'check', '--root', root]);
    expect(text.stdout).toContain('20261201-sample.md:8: broken: [[nope-note]] (target missing)');
    expect(text.stdout).not.toContain('ghost');

    const read = await zk(['--root', root, '--json', 'read', 'sample']);
    expect(read.json.links.map((l: { target: string; resolved: boolean; path: string | null }) => [l.target, l.resolved, l.path])).toEqual([
      ['20261201-target.md', true, '20261201-target.md'],
      ['20261201-target', true, '20261201-target.md'],
      ['Target', true, '20261201-target.md'],
      ['nope-note', false, null],
      ['20261201-target(1).md', true, '20261201-target(1).md'],
    ]);
    const back = await zk(['--root', root, '--json', 'read', '20261201-target']);
    expect(back.json.backlinks).toEqual([{ path: '20261201-sample.md', title: 'Sample', line: 8 }]);
    expect((await zk(['--root', root, 'read', '20261201-target'])).stdout).toContain('Linked from:\n  20261201-sample.md:8  Sample');
  });

  it('renaming notes by hand, then repair --write, fixes every form in place: the diff holds only link targets', async () => {
    const root = sampleCorpus();
    await git(root, 'init', '-q');
    expect((await zk(['tend', 'robustify', '--write', '--root', root])).code).toBe(0);
    await git(root, 'add', '-A');
    await git(root, 'commit', '-q', '-m', 'anchored');
    fs.renameSync(path.join(root, '20261201-target.md'), path.join(root, '20261201-renamed.md'));
    fs.renameSync(path.join(root, '20261201-target(1).md'), path.join(root, '20261201-second.md'));
    await git(root, 'add', '-A');
    await git(root, 'commit', '-q', '-m', 'rename by hand');

    const repair = await zk(['tend', 'repair', '--write', '--root', root, '--json']);
    expect(repair.json.counts).toEqual({ stale: 3, broken: 1 });
    const check = await zk(['tend', 'check', '--root', root, '--json']);
    expect(check.json.counts).toEqual({ ok: 4, stale: 0, broken: 1, unanchored: 0 });

    const diff = await git(root, 'diff', '--unified=0', '--', '*.md');
    const removed = diff.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---'));
    const added = diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'));
    expect(removed).toHaveLength(2);
    const swap = (l: string) =>
      `+${l
        .slice(1)
        .replace('[[20261201-target]]', '[[20261201-renamed]]')
        .replace('(20261201-target(1).md)', '(20261201-second.md)')
        .replace('[t]: 20261201-target.md', '[t]: 20261201-renamed.md')}`;
    expect(added).toEqual(removed.map(swap));
    expect(added.join('\n')).toContain('[[Target]]'); // by title: still right, untouched
  });

  it('a corpus written in Obsidian style round-trips through check, repair and read with no false reports', async () => {
    const root = tempCorpus();
    write(
      root,
      'Judy Martin.md',
      'Judy Martin\n===========\n\nPaints lake sunrises. Regular at [[Café de Flore]].\n\nEarly years\n-----------\n\nBorn in Lyon. ^born\n',
    );
    write(
      root,
      'Paris.md',
      [
        '# Paris',
        '',
        'Home of [[Judy Martin]]: see [[Judy Martin#Early years|her youth]] and [[Judy Martin#^born]].',
        '![[map.png]] and [[#Places]] and [[Paris#Places]].',
        '',
        '## Places',
        '',
        '| who | link |',
        '|---|---|',
        '| Judy | [[Judy Martin\\|Judy]] |',
        '',
        '```',
        '[[Not A Link]]',
        '```',
        '',
      ].join('\n'),
    );
    write(root, '20261201-cafe.md', noteText(UUID.c, 'Café de Flore', ['Where [[judy martin]] meets people from [[Paris]]; see [places](Paris.md#places).']));
    // The derived caches beside the index are not the corpus.
    const notesOnly = { skip: /^\.zk\/index\// };
    const before = snapshot(root, notesOnly);

    const check = await zk(['tend', 'check', '--root', root, '--json']);
    expect(check.code).toBe(0);
    expect(check.json.counts).toMatchObject({ stale: 0, broken: 0 });
    expect(check.json.findings.filter((f: F) => f.verdict !== 'ok' && f.verdict !== 'unanchored')).toEqual([]);
    const repair = await zk(['tend', 'repair', '--write', '--root', root, '--json']);
    expect(repair.json).toMatchObject({ changed: 0, files: [] });
    expect(snapshot(root, notesOnly)).toEqual(before);

    const read = await zk(['--root', root, '--json', 'read', 'Judy Martin']);
    expect(read.json.links.map((l: { target: string; path: string }) => [l.target, l.path])).toEqual([['Café de Flore', '20261201-cafe.md']]);
    expect(read.json.backlinks.map((b: { path: string; line: number }) => [b.path, b.line])).toEqual([
      ['20261201-cafe.md', 8],
      ['Paris.md', 3],
    ]);
  });

  it('reports a wikilink whose name fits several notes as ambiguous, unless its anchor says which', async () => {
    const root = tempCorpus();
    write(root, 'a.md', noteText(UUID.a, 'A', ['[[Paris]] and [[Paris]] <!-- uuid: ' + UUID.c + ' -->']));
    write(root, 'b.md', noteText(UUID.b, 'Paris', []));
    write(root, 'c.md', noteText(UUID.c, 'Paris', []));
    const check = await zk(['tend', 'check', '--root', root, '--json']);
    expect(check.json.findings.map((f: F) => [f.verdict, f.reason ?? null])).toEqual([
      ['broken', 'ambiguous: Paris names b.md, c.md'],
      ['ok', null],
    ]);
    const read = await zk(['--root', root, '--json', 'read', 'a']);
    expect(read.json.links[0]).toMatchObject({ resolved: false, ambiguous: ['b.md', 'c.md'] });
    expect(read.json.links[1]).toMatchObject({ resolved: true, path: 'c.md' });
  });

  it('repair points a wikilink to an archived, superseded note at its successor, in wikilink form', async () => {
    const root = tempCorpus();
    write(root, 'a.md', noteText(UUID.a, 'A', ['[[20261130-old#Gone heading|old]], [[Old Plans]] and [[20261130-old.md]]']));
    write(root, '20261201-next.md', noteText(UUID.next, 'Next Plans', ['## Gone heading']));
    fs.mkdirSync(path.join(root, '.archive'));
    write(root, '.archive/20261130-old.md', noteText(UUID.old, 'Old Plans', ['## Gone heading'], [`superseded_by: ${UUID.next}`]));
    const r = await zk(['tend', 'repair', '--write', '--root', root]);
    expect(r.code).toBe(0);
    const anchor = ` <!-- uuid: ${UUID.next} -->`;
    expect(fs.readFileSync(path.join(root, 'a.md'), 'utf8')).toBe(
      noteText(UUID.a, 'A', [`[[20261201-next#Gone heading|old]]${anchor}, [[Next Plans]]${anchor} and [[20261201-next.md]]${anchor}`]),
    );
    expect((await zk(['tend', 'check', '--strict', '--root', root])).code).toBe(0);
  });
});
