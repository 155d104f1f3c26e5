import { describe, expect, it } from 'vitest';
import { planWindows, type Window } from '../src/ingest/windows.js';

const texts = (text: string, ws: Window[]) => ws.map((w) => text.slice(w.start, w.end));

function expectTiling(text: string, ws: Window[]): void {
  expect(ws[0]?.start ?? 0).toBe(0);
  for (let i = 1; i < ws.length; i++) expect(ws[i].start).toBe(ws[i - 1].end);
  expect(ws[ws.length - 1]?.end ?? 0).toBe(text.length);
  expect(texts(text, ws).join('')).toBe(text);
}

describe('planWindows', () => {
  const outline = [
    'Intro before any heading.',
    '',
    '# Guide',
    '',
    '## Install',
    '',
    'Run the installer.',
    '',
    '### Linux',
    'Use apt.',
    '',
    '## Use',
    '',
    'Type commands.',
    '',
  ].join('\n');

  it('gives each section its heading path; an empty parent heading is read with its first child', () => {
    // A cap smaller than any two neighbouring sections: one window per section.
    const ws = planWindows(outline, 42);
    expectTiling(outline, ws);
    expect(ws.map((w) => [w.headings, outline.slice(w.start, w.end)])).toEqual([
      [[], 'Intro before any heading.\n\n'],
      [['Guide', 'Install'], '# Guide\n\n## Install\n\nRun the installer.\n\n'],
      [['Guide', 'Install', 'Linux'], '### Linux\nUse apt.\n\n'],
      [['Guide', 'Use'], '## Use\n\nType commands.\n'],
    ]);
    expect(ws.every((w) => w.sections === undefined)).toBe(true);
  });

  it('reads small neighbouring sections together up to the cap, listing the sections a window holds', () => {
    const ws = planWindows(outline, 64);
    expectTiling(outline, ws);
    expect(ws.map((w) => outline.slice(w.start, w.end))).toEqual([
      'Intro before any heading.\n\n',
      '# Guide\n\n## Install\n\nRun the installer.\n\n### Linux\nUse apt.\n\n',
      '## Use\n\nType commands.\n',
    ]);
    expect(ws[1]).toMatchObject({
      headings: ['Guide', 'Install'],
      sections: [
        { start: outline.indexOf('# Guide'), headings: ['Guide', 'Install'] },
        { start: outline.indexOf('### Linux'), headings: ['Guide', 'Install', 'Linux'] },
      ],
    });
    const whole = planWindows(outline, 6000);
    expect(whole).toHaveLength(1);
    expect(whole[0].sections?.map((s) => s.headings.join(' > '))).toEqual(['', 'Guide > Install', 'Guide > Install > Linux', 'Guide > Use']);
  });

  it('never cuts a section that fits in a window: it starts the next one instead', () => {
    const para = (n: number) => `Paragraph ${n} ${'word '.repeat(20).trim()}.\n\n`;
    const text = `# A\n\n${para(1)}# B\n\n${para(2)}${para(3)}# C\n\n${para(4)}`;
    const ws = planWindows(text, 300);
    expectTiling(text, ws);
    expect(ws.map((w) => w.headings)).toEqual([['A'], ['B'], ['C']]);
  });

  it("reads a source's frontmatter with the first section, never as a window of its own", () => {
    const fm = '---\ntitle: Scripts\nsection: 7\n---\n\n';
    const small = `${fm}### Description\n\nThe scripts field.\n`;
    expect(planWindows(small, 6000)).toEqual([{ start: 0, end: small.length, headings: ['Description'] }]);
    // Even when the first section is long enough to be split, the frontmatter opens its first part.
    const para = (n: number) => `Paragraph ${n} ${'word '.repeat(30).trim()}.\n\n`;
    const long = `${fm}# Long\n\n${[1, 2, 3, 4].map(para).join('')}`;
    const ws = planWindows(long, 250);
    expectTiling(long, ws);
    expect(texts(long, ws)[0]).toBe(`${fm}# Long\n\n${para(1)}`);
    expect(ws[0].headings).toEqual(['Long']);
    // A document that is only frontmatter and text keeps it in its one window.
    expect(planWindows(`${fm}Body.\n`, 6000)).toEqual([{ start: 0, end: fm.length + 6, headings: [] }]);
  });

  it('reads setext headings as headings, but not a rule after a blank line or under a list item', () => {
    const text = [
      'Guide',
      '=====',
      '',
      'Intro text.',
      '',
      'Install',
      '-------',
      '',
      'Run it',
      'twice.',
      '',
      '---',
      '',
      'After the rule.',
      '',
      '- a list item',
      '---',
      '',
      'End.',
      '',
    ].join('\n');
    const ws = planWindows(text, 30);
    expectTiling(text, ws);
    expect(ws.map((w) => [w.headings, text.slice(w.start, w.end)])).toEqual([
      [['Guide'], 'Guide\n=====\n\nIntro text.\n\n'],
      [['Guide', 'Install'], 'Install\n-------\n\nRun it\ntwice.\n\n'],
      [['Guide', 'Install'], '---\n\nAfter the rule.\n\n'],
      [['Guide', 'Install'], '- a list item\n---\n\nEnd.\n'],
    ]);
    const multi = 'Two line\nheading\n===\n\nBody.\n';
    expect(planWindows(multi, 6000)[0].headings).toEqual(['Two line heading']);
  });

  it('splits a long section between paragraphs and keeps a heading with what follows it', () => {
    const para = (n: number) => `Paragraph ${n} ${'word '.repeat(20).trim()}.`;
    const text = `# Long\n\n${[1, 2, 3, 4, 5].map(para).join('\n\n')}\n`;
    const ws = planWindows(text, 250);
    expectTiling(text, ws);
    expect(texts(text, ws)).toEqual([`# Long\n\n${para(1)}\n\n${para(2)}\n\n`, `${para(3)}\n\n${para(4)}\n\n`, `${para(5)}\n`]);
    expect(ws.every((w) => w.end - w.start <= 250)).toBe(true);
    expect(ws.every((w) => w.headings.join('/') === 'Long')).toBe(true);
  });

  it('never splits a fenced code block or a table, even when it alone exceeds the cap', () => {
    const code = '```js\n' + Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};\n\n`).join('') + '# not a heading\n```\n';
    const table = '| a | b |\n|---|---|\n' + Array.from({ length: 30 }, (_, i) => `| ${i} | row ${i} |\n`).join('');
    const text = `# Code\n\nBefore.\n\n${code}\nAfter.\n\n${table}\nEnd.\n`;
    const ws = planWindows(text, 200);
    expectTiling(text, ws);
    const parts = texts(text, ws);
    expect(parts).toContain(`${code}\n`);
    expect(parts).toContain(`${table}\n`);
    expect(ws.every((w) => w.headings.join('/') === 'Code')).toBe(true);
  });

  it('cuts a paragraph longer than the cap at lines, and a line longer than the cap at spaces', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i} of a paragraph without blank lines`).join('\n');
    const longLine = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    const text = `${lines}\n\n${longLine}\n`;
    const ws = planWindows(text, 300);
    expectTiling(text, ws);
    expect(ws.length).toBeGreaterThan(5);
    for (const part of texts(text, ws)) {
      expect(part.length).toBeLessThanOrEqual(300);
      expect(part).toMatch(/^(line|w)\d* ?/); // every window starts at a line or word boundary
    }
  });

  it('tiles arbitrary documents exactly, and only unsplittable blocks exceed the cap', () => {
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const block = (): string => {
      switch (rand(9)) {
        case 7:
          return `Setext ${rand(100)}\n${rand(2) ? '===' : '---'}\n`;
        case 8:
          return '---\n';
        case 0:
          return `${'#'.repeat(1 + rand(4))} Heading ${rand(100)}\n`;
        case 1:
          return '```\ncode\n\n' + 'x'.repeat(rand(900)) + '\n```\n';
        case 2:
          return '| h |\n|---|\n' + '| c |\n'.repeat(rand(80));
        case 3:
          return '\n'.repeat(1 + rand(3));
        case 4:
          return 'long '.repeat(rand(300)) + '\n';
        default:
          return `Some words ${'z'.repeat(rand(60))}\nmore ${rand(9)}\n`;
      }
    };
    for (let doc = 0; doc < 60; doc++) {
      const frontmatter = rand(3) ? '' : `---\ntitle: Doc ${doc}\n---\n`;
      const text = frontmatter + Array.from({ length: 1 + rand(40) }, block).join(rand(2) ? '\n' : '');
      const cap = 200 + rand(400);
      const ws = planWindows(text, cap);
      expectTiling(text, ws);
      for (const part of texts(text, ws)) {
        if (part.length > cap) expect(part.includes('```') || part.includes('|---|')).toBe(true);
      }
    }
  });

  it('reads no heading inside fenced code and keeps a document without headings as one path', () => {
    const text = 'Top.\n\n~~~\n# inside\n~~~\n\nMore.\n';
    const ws = planWindows(text, 6000);
    expect(ws).toEqual([{ start: 0, end: text.length, headings: [] }]);
  });
});
