import { describe, expect, it } from 'vitest';
import { mergeNoteTexts } from '../src/corpus/note/merge3.js';
import { mergeLogTexts } from '../src/corpus/trace/merge3.js';
import { mergeFragment } from '../src/corpus/note/format.js';

// The merge rules of docs/hosts.md, on the texts git hands the driver: each must come out the
// same whichever side is "ours", since two hosts may merge the same pair.

const BASE = `---
uuid: 3f0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a
title: Judy
date: 2026-12-01
---

# Judy

Judy paints lake sunrises.
`;

const frag = (when: string, text: string, source?: string) => mergeFragment(when, text, source);

function both(base: string, a: string, b: string) {
  const ab = mergeNoteTexts(base, a, b);
  const ba = mergeNoteTexts(base, b, a);
  expect(ab).toEqual(ba);
  return ab;
}

describe('a note merged from two hosts', () => {
  it('keeps the base and every fragment of both sides once, in date order', () => {
    const a = BASE + frag('2026-12-02T10:00:00Z', 'Moved to Paris.', 'laptop') + frag('2026-12-02T12:00:00Z', 'Bought a bike.', 'laptop');
    const b = BASE + frag('2026-12-02T11:00:00Z', 'Has a cat.', 'phone');
    const r = both(BASE, a, b);
    expect(r).toEqual({
      kind: 'clean',
      text:
        BASE +
        frag('2026-12-02T10:00:00Z', 'Moved to Paris.', 'laptop') +
        frag('2026-12-02T11:00:00Z', 'Has a cat.', 'phone') +
        frag('2026-12-02T12:00:00Z', 'Bought a bike.', 'laptop'),
    });
  });

  it('orders fragments of the same moment by their bytes, and keeps a fragment both sides hold once', () => {
    const shared = BASE + frag('2026-12-01T09:00:00Z', 'Both saw this.');
    const a = shared + frag('2026-12-02T10:00:00Z', 'zebra', 'a') + frag('2026-12-03T10:00:00Z', 'same on both', 'x');
    const b = shared + frag('2026-12-02T10:00:00Z', 'apple', 'b') + frag('2026-12-03T10:00:00Z', 'same on both', 'x');
    const r = both(shared, a, b);
    expect(r.kind).toBe('clean');
    const text = (r as { text: string }).text;
    // `(a):* zebra` sorts before `(b):* apple`: the whole fragment's bytes decide, the same on every host.
    expect(text.indexOf('zebra')).toBeLessThan(text.indexOf('apple'));
    expect(text.split('same on both').length).toBe(2);
    expect(text.startsWith(shared)).toBe(true);
  });

  it('keeps a CRLF note CRLF and a fragment below its date line whole', () => {
    const crlf = BASE.replace(/\n/g, '\r\n');
    const a = crlf + mergeFragment('2026-12-02T10:00:00Z', 'Studio\n------\nIn Montmartre.', 'a', '\r\n');
    const b = crlf + mergeFragment('2026-12-02T09:00:00Z', 'Early.', 'b', '\r\n');
    const r = both(crlf, a, b);
    expect(r).toEqual({
      kind: 'clean',
      text:
        crlf +
        mergeFragment('2026-12-02T09:00:00Z', 'Early.', 'b', '\r\n') +
        mergeFragment('2026-12-02T10:00:00Z', 'Studio\n------\nIn Montmartre.', 'a', '\r\n'),
    });
  });

  it('combines the frontmatter keys the tool writes: supersedes and fragment_sources grow, a key set on one side is kept', () => {
    const withKeys = (keys: string) => BASE.replace('date: 2026-12-01\n', `date: 2026-12-01\n${keys}`);
    const base = withKeys('supersedes:\n  - aaaaaaaa-0000-4000-8000-000000000001\n');
    const a = withKeys('supersedes:\n  - aaaaaaaa-0000-4000-8000-000000000001\n  - cccccccc-0000-4000-8000-000000000003\nvalid_from: 2026-01-01\n');
    const b = withKeys(
      'kind: concept\nsupersedes:\n  - aaaaaaaa-0000-4000-8000-000000000001\n  - bbbbbbbb-0000-4000-8000-000000000002\nfragment_sources:\n  - date: 2026-12-02T10:00:00Z\n    source_doc: guide.md\n',
    );
    const r = both(base, a, b);
    expect(r).toEqual({
      kind: 'clean',
      text: withKeys(
        'kind: concept\nsupersedes:\n  - aaaaaaaa-0000-4000-8000-000000000001\n  - bbbbbbbb-0000-4000-8000-000000000002\n  - cccccccc-0000-4000-8000-000000000003\nvalid_from: 2026-01-01\nfragment_sources:\n  - date: 2026-12-02T10:00:00Z\n    source_doc: guide.md\n',
      ),
    });
  });

  it('a note superseded on both hosts stays superseded, by the earlier supersession (a fork tend check reports)', () => {
    const by = (uuid: string, at: string) => BASE.replace('date: 2026-12-01\n', `date: 2026-12-01\nsuperseded_by: ${uuid}\nsuperseded_at: ${at}\n`);
    const a = by('bbbbbbbb-0000-4000-8000-000000000002', '2026-12-02T11:00:00Z');
    const b = by('aaaaaaaa-0000-4000-8000-000000000001', '2026-12-02T12:00:00Z');
    expect(both(BASE, a, b)).toEqual({ kind: 'clean', text: a });
  });

  it('both sides adding Related links keep every link once', () => {
    const link = (n: string) => `- [${n}](20261201-${n}.md) <!-- uuid: ${n}0000000-0000-4000-8000-000000000000 -->\n`;
    const a = `${BASE}\n## Related\n\n${link('a')}`;
    const b = `${BASE}\n## Related\n\n${link('b')}${link('c')}`;
    expect(both(BASE, a, b)).toEqual({ kind: 'clean', text: `${BASE}\n## Related\n\n${link('a')}${link('b')}${link('c')}` });
  });

  it('a link rewritten inside a fragment on one side merges with fragments appended on the other', () => {
    const base = BASE + frag('2026-12-01T10:00:00Z', 'See [x](old.md).');
    const a = BASE + frag('2026-12-01T10:00:00Z', 'See [x](new.md).');
    const b = base + frag('2026-12-02T10:00:00Z', 'More.');
    expect(both(base, a, b)).toEqual({ kind: 'clean', text: a + frag('2026-12-02T10:00:00Z', 'More.') });
  });

  it('the same line changed on both sides is a true conflict, marked as git marks it', () => {
    const a = BASE.replace('lake sunrises', 'mountains');
    const b = BASE.replace('lake sunrises', 'the sea');
    const r = mergeNoteTexts(BASE, a, b);
    expect(r.kind).toBe('conflict');
    expect((r as { text: string }).text).toContain('<<<<<<< ours\nJudy paints mountains.\n=======\nJudy paints the sea.\n>>>>>>> theirs\n');
    expect(mergeNoteTexts(BASE, BASE.replace('title: Judy', 'title: Judith'), BASE.replace('title: Judy', 'title: Jude')).kind).toBe('conflict');
  });

  it('two notes created under one name are a clash, not a merge', () => {
    const other = BASE.replace('3f0c8a4e', '4f0c8a4e').replace('lake sunrises', 'portraits');
    expect(mergeNoteTexts('', BASE, other)).toEqual({ kind: 'clash', ours: BASE, theirs: other });
  });
});

describe('the trace merged from two hosts', () => {
  const line = (ts: string, event: string) => `${JSON.stringify({ ts, event })}\n`;
  it('is the union of lines, by time, the same from either side, and adds nothing twice when merged again', () => {
    const base = line('2026-12-01T00:00:00.000Z', 'init');
    const a = base + line('2026-12-02T10:00:00.000Z', 'write') + line('2026-12-02T12:00:00.000Z', 'merge');
    const b = base + line('2026-12-02T11:00:00.000Z', 'archive');
    const merged = mergeLogTexts(base, a, b);
    expect(merged).toBe(mergeLogTexts(base, b, a));
    expect(merged).toBe(
      base + line('2026-12-02T10:00:00.000Z', 'write') + line('2026-12-02T11:00:00.000Z', 'archive') + line('2026-12-02T12:00:00.000Z', 'merge'),
    );
    // Two hosts that merged the same pair, merged with each other (a criss-cross): nothing doubles.
    expect(mergeLogTexts(base, merged, merged)).toBe(merged);
    expect(mergeLogTexts(a, merged, a + line('2026-12-02T13:00:00.000Z', 'write'))).toBe(merged + line('2026-12-02T13:00:00.000Z', 'write'));
  });
});
