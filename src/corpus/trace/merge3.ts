import { textLines, unionOfAdded, withEol } from '../note/lines3.js';

// The trace merged from two hosts: a union of lines. Each side only appends to it, so the merge
// keeps the base's lines both sides still have and every line either side added, once per side
// that added it, all ordered by their time (each line starts with its `ts`), then by their text:
// the bytes depend on the lines alone, so both hosts of a merge compute the same file, and a later
// merge of two such results adds nothing twice.

const tsOf = (line: string) => /^\{"ts":"([^"]*)"/.exec(line)?.[1] ?? '';

function counted(lines: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of lines) m.set(l, (m.get(l) ?? 0) + 1);
  return m;
}

/** Take away one of each line of `base` from `lines` (a multiset difference). */
function added(lines: string[], base: Map<string, number>): string[] {
  const left = new Map(base);
  return lines.filter((l) => {
    const n = left.get(l) ?? 0;
    left.set(l, n - 1);
    return n <= 0;
  });
}

export function mergeLogTexts(base: string, ours: string, theirs: string): string {
  const [b, o, t] = [base, ours, theirs].map((text) => textLines(text).map(withEol));
  const [inOurs, inTheirs] = [counted(o), counted(t)];
  // A base line stays while both sides still have it.
  const kept = b.filter((l) => {
    const keep = (inOurs.get(l) ?? 0) > 0 && (inTheirs.get(l) ?? 0) > 0;
    if (keep) {
      inOurs.set(l, inOurs.get(l)! - 1);
      inTheirs.set(l, inTheirs.get(l)! - 1);
    }
    return keep;
  });
  const baseCount = counted(b);
  const fresh = unionOfAdded(added(o, baseCount), added(t, baseCount));
  return [...kept, ...fresh].sort((x, y) => tsOf(x).localeCompare(tsOf(y)) || (x < y ? -1 : x > y ? 1 : 0)).join('');
}
