import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { decisionBody, mergeFragment, parseNoteText, renderNote, simpleFrontmatter } from '../src/corpus/note/format.js';
import { parseLinks } from '../src/corpus/markdown/links.js';
import { slugify } from '../src/corpus/note/slug.js';
import { headingsAndCells } from './helpers/markdown.js';

describe('slugify', () => {
  it.each([
    ['Judy', 'judy'],
    ['Café crème', 'cafe-creme'],
    ['東京 2026', '東京-2026'],
    ['Straße & Œuvre', 'strasse-oeuvre'],
    ['  --Rollback strategy: blue-green!!  ', 'rollback-strategy-blue-green'],
    ['Москва, зима', 'москва-зима'],
    ['a/../../etc/passwd', 'a-etc-passwd'],
    ["Dana's trip", 'danas-trip'],
    ['!!!', ''],
    ['😀🎉', ''],
  ])('%s -> %s', (input, want) => {
    expect(slugify(input)).toBe(want);
  });

  it('caps at 80 characters on a dash boundary', () => {
    const s = slugify('word '.repeat(40));
    expect(s.length).toBeLessThanOrEqual(80);
    expect(s).toMatch(/^(word-)*word$/);
    const long = slugify('x'.repeat(100));
    expect(long).toBe('x'.repeat(80));
  });
});

describe('note text', () => {
  it('round-trips a title that needs quoting', () => {
    for (const title of ['Rollback: blue-green', "It's #1", '- dash first', 'yes', '2026-11-30', '@home "quoted"']) {
      const text = renderNote({ uuid: 'u-1', title, date: '2026-11-30', kind: 'concept' }, 'body');
      const parsed = parseNoteText(text);
      expect(parsed.yamlError).toBeUndefined();
      expect(parsed.frontmatter.title).toBe(title);
      expect(parsed.body).toBe(`\n# ${title}\n\nbody\n`);
    }
  });

  it('writes the keys in the contract order', () => {
    const text = renderNote({ uuid: 'u', title: 'T', date: '2026-11-30', author: 'chef', kind: 'decision', supersedes: ['a'] }, '');
    expect(text).toBe('---\nuuid: u\ntitle: T\ndate: 2026-11-30\nauthor: chef\nkind: decision\nsupersedes:\n  - a\n---\n\n# T\n');
  });

  it('tolerates BOM, CRLF, no frontmatter and broken YAML', () => {
    const crlf = parseNoteText('\uFEFF---\r\nuuid: abc\r\ntitle: X\r\n---\r\n\r\n# X\r\n');
    expect(crlf.frontmatter).toEqual({ uuid: 'abc', title: 'X' });
    expect(crlf.eol).toBe('\r\n');
    expect(parseNoteText('# Just a heading\n').hasFrontmatter).toBe(false);
    const broken = parseNoteText('---\ntitle: [unclosed\n---\nbody\n');
    expect(broken.yamlError).toBeTruthy();
    expect(broken.body).toBe('body\n');
  });

  it('reads simple frontmatter without the YAML parser exactly as the parser would', () => {
    const values = [
      'plain',
      '2026-11-30',
      '3f0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a',
      '12345678-1234-1234-1234-123456789012',
      "It's fine",
      "'Rollback: blue-green'",
      "'it''s quoted'",
      'a: b',
      'x #comment',
      '"double"',
      '42',
      '-1.5e3',
      '0x1F',
      'true',
      'null',
      '~',
      '.inf',
      '[a, b]',
      '{a: 1}',
      '- item',
      '&anchor',
      '*alias',
      '!tag x',
      '|',
      '>',
      '%x',
      '@x',
      '`x`',
      'a\tb',
      'ça va',
      '東京',
      'trailing spaces   ',
      'a:b',
      'C++ (v2.0)',
      '#hash',
      '? q',
    ];
    let fast = 0;
    for (const v of values) {
      const yaml = `uuid: u-1\ntitle: ${v}\n`;
      const simple = simpleFrontmatter(yaml);
      let parsed: unknown;
      try {
        parsed = YAML.parse(yaml, { schema: 'core' });
      } catch {
        parsed = 'error';
      }
      if (simple) {
        fast++;
        expect(simple, v).toEqual(parsed);
      }
    }
    expect(fast).toBeGreaterThan(10);
    expect(simpleFrontmatter('a: x\na: y\n')).toBeUndefined();
    expect(simpleFrontmatter('supersedes:\n  - x\n')).toBeUndefined();
  });

  it('builds decision bodies and merge fragments exactly', () => {
    expect(decisionBody('Context.', { choice: 'A', alternatives: ['B', 'C'], rationale: 'cheap' })).toBe(
      '**Decision:** A\n\nContext.\n\n**Alternatives considered:**\n- B\n- C\n\n**Rationale:** cheap',
    );
    expect(mergeFragment('2026-11-30', ' moved to Paris \n', 'host1')).toBe('\n\n---\n*2026-11-30 (host1):* moved to Paris\n');
    expect(mergeFragment('2026-11-30', 'x')).toBe('\n\n---\n*2026-11-30:* x\n');
  });
});

describe("a merge fragment's date line", () => {
  const oldForm = (text: string) => `\n\n---\n*2026-12-01 (src):* ${text}\n`;
  const rendered = (fragment: string) => headingsAndCells(`# Dana\n\nDana welds.${fragment}`).filter((b) => b.includes('2026-12-01'));

  // Every text whose first paragraph pulls the line above into a setext heading (a line of only
  // `=` or only `-`, at most three spaces in) or, with GFM, a table's head (a delimiter row next).
  it.each([
    'Dana\n---',
    'Dana\n===',
    'Dana\n-',
    'Dana\n=',
    'Dana\n   --  \nwelds',
    'Dana\nleads\n---',
    '---\n---',
    '- Dana\n===',
    '> Dana\n---',
    '# Dana\n---',
    'Dana\\\n---',
    'Dana\n2. welds\n---',
    '<!-- x -->\n---',
    'Dana | crew\n--- | ---',
    'Dana\n|---|',
    'Dana\n:---',
    'Dana\n-:',
  ])('%j starts below the date line, which renders as no heading or table', (text) => {
    expect(rendered(oldForm(text)).length).toBeGreaterThan(0);
    const fragment = mergeFragment('2026-12-01', text, 'src');
    expect(fragment).toBe(`\n\n---\n*2026-12-01 (src):*\n\n${text}\n`);
    expect(rendered(fragment)).toEqual([]);
    expect(mergeFragment('2026-12-01', text, 'src', '\r\n')).toBe(fragment.replace(/\n/g, '\r\n'));
  });

  it.each(['Moved to Paris.', 'Dana\n***', 'Dana\n\n---\nwelds', '---\nDana', '=== Dana', 'Dana\nwelds', 'Dana\n> welds'])(
    '%j stays on the date line, as it always was written',
    (text) => {
      expect(mergeFragment('2026-12-01', text, 'src')).toBe(oldForm(text));
      expect(rendered(oldForm(text))).toEqual([]);
    },
  );

  it("keeps the text's own heading when it starts below the date line", () => {
    expect(headingsAndCells(`# Dana${mergeFragment('2026-12-01', 'Crew\n====\nDana leads it.')}`)).toEqual(['heading: Dana', 'heading: Crew']);
  });
});

describe('links', () => {
  it('finds note links with anchors and lines, skipping code and URLs', () => {
    const text = [
      'See [Judy](20261130-judy.md) <!-- uuid: 3f0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a --> and [web](https://x.org/a.md).',
      '`[inline](a.md)` and ![img](pic.md)',
      '```',
      '[fenced](b.md)',
      '```',
      '[Heading](c.md#some-part) and [dot](./d.md)',
    ].join('\n');
    const links = parseLinks(text);
    expect(links.map((l) => [l.target, l.line, l.uuid ?? null, l.fragment ?? null])).toEqual([
      ['20261130-judy.md', 1, '3f0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a', null],
      ['c.md', 6, null, 'some-part'],
      ['d.md', 6, null, null],
    ]);
    expect(text.slice(links[0].targetStart, links[0].targetEnd)).toBe('20261130-judy.md');
  });
});
