import type { NoteFacts } from '../corpus/graph/facts.js';
import type { Finding } from './check.js';
import type { CorpusMap } from './corpus-map.js';

// A note superseded on two hosts by two different notes: once their histories are merged, both
// successors list it under `supersedes` while its own `superseded_by` names one of them. Neither
// belief is wrong by the files alone, so this is a `fork`, left for a person to settle.

/** A note with two or more current successors. */
export interface Fork {
  note: NoteFacts;
  /** The current successors, in name order. */
  successors: NoteFacts[];
}

const lower = (s: string | null | undefined) => (s ?? '').toLowerCase();

/** The live notes that replaced each note: those listing it under `supersedes`, and the one its `superseded_by` names. */
function successorsByNote(notes: readonly NoteFacts[], map: CorpusMap): Map<NoteFacts, Set<NoteFacts>> {
  const out = new Map<NoteFacts, Set<NoteFacts>>();
  const add = (old: NoteFacts, next: NoteFacts) => {
    if (old === next) return;
    const set = out.get(old);
    if (set) set.add(next);
    else out.set(old, new Set([next]));
  };
  for (const n of notes) {
    for (const uuid of n.supersedes) {
      const holders = map.holders(uuid);
      if (holders.length === 1) add(holders[0], n);
    }
    const by = n.superseded_by ? map.holders(n.superseded_by) : [];
    if (by.length === 1) add(n, by[0]);
  }
  return out;
}

/** Every note that two or more current notes (neither superseded nor archived) replace. */
export function forks(notes: readonly NoteFacts[], map: CorpusMap): Fork[] {
  const out: Fork[] = [];
  for (const [note, next] of successorsByNote(notes, map)) {
    const current = [...next].filter((n) => !n.superseded_by).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (current.length > 1) out.push({ note, successors: current });
  }
  return out.sort((a, b) => (a.note.path < b.note.path ? -1 : 1));
}

/** The uuids of forked notes, lowercase: other supersession checks leave these to the person. */
export function forkedUuids(found: Fork[]): Set<string> {
  return new Set(found.map((f) => lower(f.note.uuid)).filter(Boolean));
}

const NUMBERS = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** `A.md and B.md`, `A.md, B.md and C.md`. */
export function listed(paths: string[]): string {
  return paths.length < 2 ? paths.join('') : `${paths.slice(0, -1).join(', ')} and ${paths.at(-1)}`;
}

/** One finding per forked note, on its `superseded_by` line. */
export function forkFindings(found: Fork[], map: CorpusMap): Finding[] {
  return found.map(({ note, successors }) => {
    const named = note.superseded_by ? map.holders(note.superseded_by) : [];
    const paths = successors.map((n) => n.path);
    return {
      file: note.path,
      line: note.lines.superseded_by,
      label: 'superseded_by',
      target: named.length === 1 ? named[0].path : (note.superseded_by ?? ''),
      uuid: note.uuid || null,
      verdict: 'fork',
      reason: `${note.path} was superseded by ${NUMBERS[paths.length] ?? paths.length} notes: ${listed(paths)}`,
      notes: paths,
    };
  });
}
