import { describe, expect, it } from 'vitest';
import { residentState } from '../src/compose.js';
import { processIo, withContext } from '../src/context.js';
import { headingLists, loadNoteFacts, noteFacts } from '../src/corpus/graph/facts.js';
import { readNoteFile } from '../src/corpus/note/notes.js';
import { noteCacheFile } from '../src/search/location.js';
import { Settings } from '../src/settings.js';
import { tempCorpus, write } from './helpers/corpus.js';

// A resident process keeps every note's facts in a lean form of its own (src/corpus/graph/facts.ts):
// the headings of a note whose only heading is its title are one shared value, made again when
// asked. What it keeps must read back as the facts of the note itself, whatever its headings.

const U = (n: number) => `${String(n).repeat(8)}-1111-4111-8111-111111111111`;
const note = (n: number, title: string, body: string) => `---\nuuid: ${U(n)}\ntitle: ${title}\ndate: 2026-01-01\n---\n\n${body}\n`;

const NOTES: [string, string, string][] = [
  ['20260101-plain.md', 'Plain note', '# Plain note\n\nOnly its title as a heading.'],
  ['20260101-parts.md', 'Parts', '# Parts\n\n## First part\n\nText.\n\n## First part\n\nThe same heading again.'],
  ['20260101-other.md', 'Other title', '# A heading that is not the title\n\nText.'],
  ['20260101-none.md', 'No heading', 'Text without any heading.'],
  ['20260101-anchor.md', 'Anchored', '# Anchored\n\n<a name="here"></a> Text.'],
  ['20260101-block.md', 'Blocked', '# Blocked\n\nA line with a block id. ^b1'],
  ['20260101-marks.md', 'Marks: a #tag | and ^caret', '# Marks: a #tag | and ^caret\n\nText.'],
];

describe('the facts a resident process keeps of every note', () => {
  it('give each note the headings its text has, kept from scratch and from the cache file alike', async () => {
    const root = tempCorpus();
    NOTES.forEach(([name, title, body], i) => write(root, name, note(i + 1, title, body)));
    const fresh = new Map(NOTES.map(([name]) => [name, headingLists(noteFacts(readNoteFile(root, name)!))]));
    expect(fresh.get('20260101-parts.md')?.slugs).toEqual(['parts', 'first-part', 'first-part-1']);
    for (let run = 0; run < 2; run++) {
      // The first process builds the cache file beside the index; the second keeps what it reads from it.
      const warm = residentState(root, true, { networkRescanMs: 0 });
      try {
        await withContext({ settings: new Settings({}), io: processIo, resident: warm, noteCache: noteCacheFile }, async () => {
          const kept = loadNoteFacts(root);
          expect(kept.map((f) => f.path).sort()).toEqual([...fresh.keys()].sort());
          for (const f of kept) expect(headingLists(f), `${f.path}, run ${run}`).toEqual(fresh.get(f.path));
        });
      } finally {
        warm.close();
      }
    }
  });
});
