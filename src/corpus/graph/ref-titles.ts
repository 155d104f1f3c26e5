import { loadNoteMetas, type NoteMeta } from '../note/note-meta.js';
import { nameKey, undatedSlug } from '../markdown/note-names.js';
import { slugify } from '../note/slug.js';

// The last ways a ref can name a note, and what to offer when it names none: a note's title as
// written, and the notes a mistyped ref most likely meant. Both look at every note's title and
// name, from the metadata `list` keeps (src/corpus/note/note-meta.ts), so a corpus of 50,000
// notes is not read for it.

/** The notes whose frontmatter title is `title`, compared as names are (case and runs of spaces aside). */
export function notesTitled(root: string, title: string): NoteMeta[] {
  const want = nameKey(title);
  return want ? loadNoteMetas(root).filter((n) => nameKey(n.title) === want) : [];
}

/** How many notes an unknown ref suggests at most. */
const SUGGESTIONS = 3;

/**
 * The notes a ref that names none most likely meant: those whose undated slug is a few edits from
 * the ref's slug (`dana-whitfeld` for `dana-whitfield`), closest first, then those whose title
 * holds most of the ref's words; current notes before superseded ones.
 */
export function likelyNotes(root: string, ref: string): NoteMeta[] {
  const slug = slugify(ref);
  const words = new Set(slug.split('-').filter((w) => w.length > 1));
  if (!slug) return [];
  const most = Math.max(1, Math.min(3, Math.floor(slug.length / 4)));
  const scored: { n: NoteMeta; score: number }[] = [];
  for (const n of loadNoteMetas(root)) {
    const d = editDistance(slug, undatedSlug(n.path) ?? '', most);
    if (d <= most) {
      scored.push({ n, score: 10 - d });
      continue;
    }
    if (!words.size) continue;
    const title = new Set(slugify(n.title).split('-'));
    const shared = [...words].filter((w) => title.has(w)).length / words.size;
    if (shared >= 0.5) scored.push({ n, score: shared * 5 });
  }
  const rank = (s: { n: NoteMeta; score: number }) => s.score + (s.n.superseded_by ? 0 : 0.5);
  return scored.sort((a, b) => rank(b) - rank(a) || a.n.path.localeCompare(b.n.path)).slice(0, SUGGESTIONS).map((s) => s.n);
}

/**
 * The edit distance (insertions, deletions, substitutions) between `a` and `b`, or `limit + 1` as
 * soon as it must exceed `limit`: only cells near the diagonal are worked out, so every note's
 * name can be compared.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const over = limit + 1;
  // Only the cells within `limit` of the diagonal can stay within the limit.
  let prev = Array.from({ length: b.length + 1 }, (_, j) => (j <= limit ? j : over));
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(over);
    row[0] = i <= limit ? i : over;
    let best = row[0];
    for (let j = Math.max(1, i - limit); j <= Math.min(b.length, i + limit); j++) {
      row[j] = Math.min(over, prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]);
    }
    if (best > limit) return over;
    prev = row;
  }
  return prev[b.length];
}
