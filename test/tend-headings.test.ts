import { describe, expect, it } from 'vitest';
import { githubSlug, hasFragment, headingSlugs } from '../src/corpus/markdown/headings.js';

describe('heading slugs', () => {
  it('follows GitHub: lowercase, punctuation except - and _ dropped, each space a dash', () => {
    expect(githubSlug('Hello, World!')).toBe('hello-world');
    expect(githubSlug('Rollback strategy: blue-green')).toBe('rollback-strategy-blue-green');
    expect(githubSlug('snake_case & more')).toBe('snake_case--more');
    expect(githubSlug('Café au lait 東京 2026')).toBe('café-au-lait-東京-2026');
    expect(githubSlug('Why? 🚀 Because.')).toBe('why--because');
  });

  it('numbers repeats, skips headings in code, reads setext headings and HTML anchors', () => {
    const body = [
      '# Intro',
      '## Intro',
      '### Intro 1',
      '## Intro ##',
      '```',
      '# Not a heading',
      '```',
      '## The `run` command and [links](x.md)',
      'Setext title',
      '============',
      '',
      '- list item',
      '---',
      'text <a name="custom-anchor"></a>',
      '#hashtag is not a heading',
    ].join('\r\n');
    expect([...headingSlugs(body)]).toEqual(['intro', 'intro-1', 'intro-1-1', 'intro-2', 'the-run-command-and-links', 'setext-title', 'custom-anchor']);
  });

  it('matches fragments as written, percent-encoded or in other case', () => {
    const slugs = headingSlugs('## Café notes\n');
    expect(hasFragment(slugs, 'café-notes')).toBe(true);
    expect(hasFragment(slugs, 'caf%C3%A9-notes')).toBe(true);
    expect(hasFragment(slugs, 'Café-Notes')).toBe(true);
    expect(hasFragment(slugs, 'cafe-notes')).toBe(false);
  });
});
