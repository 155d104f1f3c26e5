import type { NoteInfo } from '../corpus/notes.js';

/** One line per note for people: stem, kind and title. */
export function noteLine(n: NoteInfo): string {
  const kind = n.kind ? ` [${n.kind}]` : '';
  const old = n.superseded_by ? ' (superseded)' : '';
  return `${n.slug}${kind}  ${n.title}${old}`;
}

/** Counts for people: `3 kept, 1 merged`, or `none` when there are none. */
export function countsText(counts: Record<string, number>, none = 'none'): string {
  return Object.entries(counts).map(([what, n]) => `${n} ${what}`).join(', ') || none;
}
