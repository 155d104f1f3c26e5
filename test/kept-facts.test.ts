import { describe, expect, it } from 'vitest';
import { residentState } from '../src/compose.js';
import { processIo, withContext } from '../src/context.js';
import { headingLists, loadNoteFacts, noteFacts, noteValidity } from '../src/corpus/graph/facts.js';
import { readNoteFile } from '../src/corpus/note/notes.js';
import { noteCacheFile } from '../src/search/location.js';
import { Settings } from '../src/settings.js';
import { tempCorpus, write } from './helpers/corpus.js';

// A resident process keeps every note's facts in a lean form of its own (src/corpus/graph/facts.ts):
// the headings of a note whose only heading is its title are one shared value, made again when
// asked. What it keeps must read back as the facts of the note itself, whatever its headings.

const U = (n: number) => `${String(n).repeat(8)}-1111-4111-8111-111111111111`;
const note = (n: number, title: string, body: string, keys = '') => `---\nuuid: ${U(n)}\ntitle: ${title}\ndate: 2026-01-01\n${keys}---\n\n${body}\n`;

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
    // Notes with validity keys, one of them a date that cannot be read: kept with their lines.
    write(root, '20260101-valid.md', note(20, 'Valid', 'Text.', 'valid_from: 2026-02-01\nvalid_until: 2026-03-01\n'));
    write(root, '20260101-until.md', note(21, 'Until', 'Text.', 'kind: concept\nvalid_until: 2026-03-01\n'));
    write(root, '20260101-bad.md', note(22, 'Bad', 'Text.', 'valid_from: someday\n'));
    const names = [...NOTES.map(([name]) => name), '20260101-valid.md', '20260101-until.md', '20260101-bad.md'];
    const facts = new Map(names.map((name) => [name, noteFacts(readNoteFile(root, name)!)]));
    const fresh = new Map([...facts].map(([name, f]) => [name, headingLists(f)]));
    expect(noteValidity(facts.get('20260101-until.md')!)).toEqual({
      date: '2026-01-01',
      valid_from: null,
      valid_until: '2026-03-01',
      lines: { valid_from: 1, valid_until: 6 },
    });
    expect(fresh.get('20260101-parts.md')?.slugs).toEqual(['parts', 'first-part', 'first-part-1']);
    for (let run = 0; run < 2; run++) {
      // The first process builds the cache file beside the index; the second keeps what it reads from it.
      const warm = residentState(root, true, { networkRescanMs: 0 });
      try {
        await withContext({ settings: new Settings({}), io: processIo, resident: warm, noteCache: noteCacheFile }, async () => {
          const kept = loadNoteFacts(root);
          expect(kept.map((f) => f.path).sort()).toEqual([...fresh.keys()].sort());
          for (const f of kept) {
            expect(headingLists(f), `${f.path}, run ${run}`).toEqual(fresh.get(f.path));
            expect(noteValidity(f), `${f.path}, run ${run}`).toEqual(noteValidity(facts.get(f.path)!));
          }
        });
      } finally {
        warm.close();
      }
    }
  });
});
