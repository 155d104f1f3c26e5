import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { byTitleKey, followTitleKey } from '../src/api/similar.js';
import { noteFacts, type NoteFacts } from '../src/corpus/graph/facts.js';
import { followLinkIndex, linkIndex } from '../src/corpus/graph/link-graph.js';
import { datedBySlug, followDated } from '../src/corpus/graph/refs.js';
import { MultiMap } from '../src/corpus/multimap.js';
import { isPinned, noteMeta, type NoteMeta } from '../src/corpus/note/note-meta.js';
import { readNoteFile } from '../src/corpus/note/notes.js';
import { tempCorpus, write } from './helpers/corpus.js';

// The indexes a resident server keeps of every note follow each changed note instead of being
// built again over every note (src/corpus/note/stat-cache.ts `keptBuilt`): after any change,
// the followed index must be the one built anew from the notes as they are now.

const U = (n: number) => `${String(n).repeat(8)}-1111-4111-8111-111111111111`;
const note = (n: number, title: string, body: string) => `---\nuuid: ${U(n)}\ntitle: ${title}\ndate: 2026-01-01\n---\n\n# ${title}\n\n${body}\n`;

/** Maps of lists compared as sets: a followed list may hold its names in another order. */
function canonical(value: unknown): unknown {
  // A look-up the index was given (the resident process's kept answers) is not its own to compare.
  if (typeof value === 'function') return 'a look-up';
  if (value instanceof MultiMap) return canonical(new Map(value.entries()));
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [k, canonical(v)]).sort(([a], [b]) => String(a).localeCompare(String(b))));
  if (value instanceof Set) return [...value].sort();
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'object' && v && 'path' in v ? v.path : v)).sort();
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonical(v)]));
  return value;
}

function notesOf(root: string) {
  const names = fs.readdirSync(root).filter((n) => n.endsWith('.md'));
  const facts = new Map<string, NoteFacts>();
  const metas = new Map<string, NoteMeta>();
  for (const name of names) {
    const n = readNoteFile(root, name)!;
    facts.set(name, noteFacts(n));
    metas.set(name, noteMeta(n, fs.statSync(path.join(root, name)), isPinned(n)));
  }
  return { facts, metas };
}

describe('an index kept by a resident server, followed note by note', () => {
  it('is, after notes are added, edited, retitled and removed, the index built anew', () => {
    const root = tempCorpus();
    write(root, '20260101-alpha.md', note(1, 'Alpha', 'The first note.'));
    write(root, '20260101-beta.md', note(2, 'Beta', 'Links to [[Alpha]] and [the first](20260101-alpha.md).'));
    write(root, '20260102-beta.md', note(3, 'Beta again', 'Another beta.'));
    const before = notesOf(root);
    // The index reads a note's facts where the resident process keeps them: here, the notes as they are.
    let current = before.facts;
    const links = linkIndex([...before.facts.values()], (name) => current.get(name));
    const dated = datedBySlug([...before.facts.values()]);
    const titles = byTitleKey([...before.metas.values()]);

    write(root, '20260101-gamma.md', note(4, 'Alphas', 'Links to [[Beta]].'));
    write(root, '20260101-beta.md', note(2, 'Beta renamed', 'Links to nothing now.'));
    fs.rmSync(path.join(root, '20260102-beta.md'));
    const after = notesOf(root);
    current = after.facts;
    for (const name of new Set([...before.facts.keys(), ...after.facts.keys()])) {
      followLinkIndex(links, before.facts.get(name), after.facts.get(name));
      followDated(dated, before.facts.get(name), after.facts.get(name));
      followTitleKey(titles, before.metas.get(name), after.metas.get(name));
    }

    expect(canonical(links)).toEqual(canonical(linkIndex([...after.facts.values()], (name) => after.facts.get(name))));
    expect(canonical(dated)).toEqual(canonical(datedBySlug([...after.facts.values()])));
    expect(canonical(titles)).toEqual(canonical(byTitleKey([...after.metas.values()])));
    // The changes are in them: the retitled note left its old title's key, the removed note its slug.
    expect(canonical(dated)).toEqual({ alpha: ['20260101-alpha.md'], beta: ['20260101-beta.md'], gamma: ['20260101-gamma.md'] });
    expect(
      [...titles.entries()]
        .flatMap(([, metas]) => metas)
        .map((m) => m.path)
        .sort(),
    ).toEqual(['20260101-alpha.md', '20260101-beta.md', '20260101-gamma.md']);
  });
});
