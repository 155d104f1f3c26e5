import { diff3Merge } from 'node-diff3';

// A three-way merge of text by lines (diff3), as git's own merge makes it, with one rule of the
// tool's own: where both sides only added link items to the same list (the `## Related` section
// the tool keeps), the items of both are kept.

/** A text's lines, each with its line ending. */
export function textLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

export interface LinesMerge {
  text: string;
  /** Some region was changed differently on both sides: `text` holds git's conflict markers there. */
  conflict: boolean;
}

/** A list item holding a note link, as the tool writes Related entries. */
const LINK_ITEM = /^[-*+][ \t]+(?:\[\[[^\n]*\]\]|\[[^\n]*\]\([^\n]*\))/;

/** A line, or a whole text, ending with a line break. */
export const withEol = (l: string) => (l === '' || l.endsWith('\n') ? l : `${l}\n`);

/**
 * What two sides added, each item as often as the side that added it most (a multiset union):
 * an item both added once is kept once, so merging the same additions twice doubles nothing.
 */
export function unionOfAdded(ours: string[], theirs: string[]): string[] {
  const count = (items: string[]) => items.reduce((m, u) => m.set(u, (m.get(u) ?? 0) + 1), new Map<string, number>());
  const [a, b] = [count(ours), count(theirs)];
  const out: string[] = [];
  for (const item of new Set([...ours, ...theirs])) {
    for (let i = 0; i < Math.max(a.get(item) ?? 0, b.get(item) ?? 0); i++) out.push(item);
  }
  return out;
}

function startsWith(lines: string[], prefix: string[]): boolean {
  return prefix.every((l, i) => lines[i] === l);
}

/**
 * Both sides inserted lines at one place, and what differs is link items alone: the base's lines,
 * the lines both added alike, then every item of either side once, sorted, so that both hosts of
 * a merge compute the same bytes. Undefined for any other conflict.
 */
function linkItemsUnion(o: string[], a: string[], b: string[]): string[] | undefined {
  if (!startsWith(a, o) || !startsWith(b, o)) return undefined;
  const aRest = a.slice(o.length);
  const bRest = b.slice(o.length);
  let same = 0;
  while (same < aRest.length && same < bRest.length && aRest[same] === bRest[same]) same++;
  const differing = [...aRest.slice(same), ...bRest.slice(same)];
  if (!differing.every((l) => LINK_ITEM.test(l))) return undefined;
  const items = [...new Set(differing.map(withEol))].sort();
  return [...o, ...aRest.slice(0, same).map(withEol), ...items];
}

/** Merge `ours` and `theirs`, both changed from `base`, line by line. */
export function mergeLines(base: string, ours: string, theirs: string): LinesMerge {
  const out: string[] = [];
  let conflict = false;
  for (const region of diff3Merge(textLines(ours), textLines(base), textLines(theirs), { excludeFalseConflicts: true })) {
    if (region.ok) {
      out.push(...region.ok);
      continue;
    }
    const { a, o, b } = region.conflict!;
    const union = linkItemsUnion(o, a, b);
    if (union) {
      out.push(...union);
      continue;
    }
    conflict = true;
    out.push('<<<<<<< ours\n', ...a.map(withEol), '=======\n', ...b.map(withEol), '>>>>>>> theirs\n');
  }
  return { text: out.join(''), conflict };
}
