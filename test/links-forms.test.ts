import { describe, expect, it } from 'vitest';
import { parseLinks } from '../src/corpus/markdown/links.js';
import { parseMarkdown } from '../src/corpus/markdown/markdown.js';
import { NoteNames } from '../src/corpus/markdown/note-names.js';
import type { Note } from '../src/corpus/note/notes.js';
import { scanPlain } from '../src/corpus/markdown/plain-scan.js';
import { formatLink, requireLinkStyle } from '../src/corpus/graph/related.js';
import { hasWikiFragment, headingSlugs, noteHeadings } from '../src/corpus/markdown/headings.js';

const SAMPLE = [
  'Ref style: [the target][t] and wiki: [[20261201-target]] and [[Target]] and broken wiki [[nope-note]] and parens [p](20261201-target(1).md).',
  '',
  '    indented code [ghost](ghost-indented.md)',
  '',
  '[t]: 20261201-target.md',
  '',
].join('\n');

const written = (text: string, l: { targetStart: number; targetEnd: number }) => text.slice(l.targetStart, l.targetEnd);

describe('links as people write them', () => {
  it('finds the reference link, the wikilinks and the parenthesised link, and nothing in indented code', () => {
    const links = parseLinks(SAMPLE);
    expect(links.map((l) => [l.form, l.label, l.target, l.line, written(SAMPLE, l)])).toEqual([
      ['reference', 'the target', '20261201-target.md', 1, '20261201-target.md'],
      ['wiki', '20261201-target', '20261201-target', 1, '20261201-target'],
      ['wiki', 'Target', 'Target', 1, 'Target'],
      ['wiki', 'nope-note', 'nope-note', 1, 'nope-note'],
      ['inline', 'p', '20261201-target(1).md', 1, '20261201-target(1).md'],
    ]);
    // the reference link's target is located in its definition, which a rewrite changes
    expect(links[0].targetStart).toBe(SAMPLE.indexOf('20261201-target.md\n'));
  });

  it('reads angle-bracket destinations, titles, wikilink aliases and headings, embeds and anchors', () => {
    const text = [
      'See [a](<my note.md#Part> "title") and [[Some Note#Intro|the intro]] <!-- uuid: 0123abcd-0000-4000-8000-000000000001 -->.',
      '![[diagram.png]] and ![[Embedded note]] and ![pic](pic.png) and <https://example.org/x.md>.',
      '| a | [[Cell\\|alias]] |',
      '|---|---|',
      '`[[code]]` <!-- [[comment]] [c](comment.md) -->',
      '```',
      '[[fenced]] [f](fenced.md)',
      '```',
    ].join('\n');
    const links = parseLinks(text);
    expect(links.map((l) => [l.form, l.image, l.label, l.target, l.fragment ?? null, l.uuid ?? null, l.line])).toEqual([
      ['inline', false, 'a', 'my note.md', 'Part', null, 1],
      ['wiki', false, 'the intro', 'Some Note', 'Intro', '0123abcd-0000-4000-8000-000000000001', 1],
      ['wiki', true, 'diagram.png', 'diagram.png', null, null, 2],
      ['wiki', true, 'Embedded note', 'Embedded note', null, null, 2],
      ['wiki', false, 'alias', 'Cell', null, null, 3],
    ]);
    expect(written(text, links[0])).toBe('my note.md#Part');
    expect(written(text, links[1])).toBe('Some Note#Intro');
    const all = parseLinks(text, { external: true, images: true });
    expect(all.filter((l) => l.form === 'autolink').map((l) => l.target)).toEqual(['https://example.org/x.md']);
    expect(all.filter((l) => l.image && l.form === 'inline').map((l) => l.target)).toEqual(['pic.png']);
  });

  it('gives line numbers of the whole file when only the body is parsed', () => {
    const text = '---\ntitle: x\n---\n\n[[a]] and [b](b.md)\n';
    expect(parseLinks(text, text.indexOf('\n\n') + 1).map((l) => [l.target, l.line])).toEqual([
      ['a', 5],
      ['b.md', 5],
    ]);
  });
});

describe('the plain scan', () => {
  const plain = [
    '# Note 1\n\nSome prose.\n\n## Details\n\n- see [n](a.md) <!-- uuid: 00000001-0000-4000-8000-000000001234 --> for more\n- [x](b.md#details)\n\n```md\n[not](c.md)\n```\n\nMore at [docs](https://example.org/docs.md).\n',
    'Text with `code [x](y.md)` and [z](z.md).\r\n\r\n---\r\n*2026-01-01:* merged [w](w.md)\r\n',
    '',
    'No links at all, one heading:\n\n### Three ###\n',
  ];
  it('gives exactly what the parser gives for plain Markdown', () => {
    for (const text of plain) {
      const doc = scanPlain(text);
      expect(doc, JSON.stringify(text)).toBeDefined();
      expect(doc).toEqual(parseMarkdown(text));
    }
  });

  it('leaves everything else to the parser', () => {
    const other = [
      SAMPLE,
      'Setext\n------\n',
      '[a](b.md "title")',
      'x [a\\]](b.md)',
      '- [ ] task [a](b.md)',
      '<div>\n[a](b.md)\n</div>',
      'http://x.org/[a](b.md)',
      '> # quoted heading',
      '# heading with [link](a.md)',
      '| [a|b](c.md) |',
      '``a`b`` [x](y.md)',
    ];
    for (const text of other) expect(scanPlain(text), text).toBeUndefined();
  });
});

describe('headings', () => {
  it('counts ATX and setext headings outside code, by GitHub slugs and by text for wikilinks', () => {
    const body = ['Setext *one*', '===', '', 'Two: the sequel', '---', '', '```', '# not a heading', '```', '', '# Two: the sequel #', 'para ^blk-1'].join(
      '\n',
    );
    expect([...headingSlugs(body)]).toEqual(['setext-one', 'two-the-sequel', 'two-the-sequel-1']);
    const h = noteHeadings(parseMarkdown(body));
    expect(hasWikiFragment(h, 'Setext one')).toBe(true);
    expect(hasWikiFragment(h, 'two the sequel')).toBe(true); // Obsidian drops the colon
    expect(hasWikiFragment(h, 'Setext one#Two: the sequel')).toBe(true);
    expect(hasWikiFragment(h, '^blk-1')).toBe(true);
    expect(hasWikiFragment(h, 'not a heading')).toBe(false);
  });
});

describe('wikilink names', () => {
  const note = (path: string, title: string, superseded_by = '') => ({ path, title, superseded_by, uuid: path }) as unknown as Note;
  it('resolves by file name, stem, title or undated slug, and reports several matches as ambiguous', () => {
    const judy = note('20261130-judy.md', 'Judy Martin');
    const paris = note('20261201-paris.md', 'Paris');
    const parisOld = note('20250101-paris.md', 'Paris');
    const parisToo = note('20250101-paris-notes.md', 'Paris');
    const names = new NoteNames([judy, paris, parisToo, note('20261202-café.md', 'Café')]);
    expect(names.resolve('20261130-judy.md').note).toBe(judy);
    expect(names.resolve('20261130-JUDY').note).toBe(judy);
    expect(names.resolve('judy martin').note).toBe(judy);
    expect(names.resolve('judy').note).toBe(judy);
    const light = [note('20261201-lumiere.md', 'City of Light'), note('20250101-city.md', 'City of Light')];
    expect(new NoteNames(light).resolve('city of light').ambiguous).toEqual(light);
    // a shared title gives way to the undated slug when that names one note, as a ref does
    expect(names.resolve('Paris').note).toBe(paris);
    // and to an undated slug both bear, which names the newest current one
    const sameSlug = new NoteNames([paris, parisOld]);
    expect(sameSlug.resolve('Paris').note).toBe(paris);
    expect(sameSlug.resolve('paris').note).toBe(paris);
    expect(names.resolve('nobody')).toEqual({});
    // a superseded note does not make its successor's name ambiguous
    const current = new NoteNames([paris, note('20250101-paris.md', 'Paris', 'x')]);
    expect(current.resolve('Paris').note).toBe(paris);
    expect(names.nameFor(judy, 'Judy')).toBe('Judy Martin');
    expect(names.nameFor(judy, '20261130-old-judy')).toBe('20261130-judy');
    expect(names.nameFor(judy, 'old.md')).toBe('20261130-judy.md');
    expect(new NoteNames(light).nameFor(light[0], 'City of Light')).toBe('lumiere'); // the title is shared: the slug names it alone
    expect(names.nameFor(paris, 'Paris')).toBe('Paris'); // the shared title gives way to the slug, which names it
  });
});

describe('link style', () => {
  const t = { title: 'Judy [draft] | notes', path: '20261130-judy.md', uuid: 'ABCDEF01-0000-4000-8000-000000000001' };
  it('writes Markdown links by default and wikilinks by stem when asked', () => {
    expect(formatLink(t)).toBe('[Judy (draft) | notes](20261130-judy.md) <!-- uuid: abcdef01-0000-4000-8000-000000000001 -->');
    expect(formatLink(t, 'wikilink')).toBe('[[20261130-judy|Judy (draft) - notes]] <!-- uuid: abcdef01-0000-4000-8000-000000000001 -->');
    const [link] = parseLinks(formatLink(t, 'wikilink'));
    expect([link.target, link.uuid]).toEqual(['20261130-judy', 'abcdef01-0000-4000-8000-000000000001']);
  });
  it('takes the style from the flag, else the setting, and refuses an unknown one', () => {
    expect(requireLinkStyle(undefined, undefined)).toBe('markdown');
    expect(requireLinkStyle(undefined, 'wikilink')).toBe('wikilink');
    expect(requireLinkStyle('markdown', 'wikilink')).toBe('markdown');
    expect(() => requireLinkStyle('obsidian', undefined)).toThrow(/unknown link style/);
  });
});
