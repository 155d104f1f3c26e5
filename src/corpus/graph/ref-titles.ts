import { keptNoteMetas } from '../note/note-meta.js';
import { readNoteFile } from '../note/notes.js';
import { listNoteFiles } from '../files/note-files.js';
import { nameKey, undatedSlug } from '../markdown/note-names.js';
import { slugify } from '../note/slug.js';
import { candidateFiles } from './grep.js';
import { escapeRegExp } from '../regex.js';

// The last ways a ref can name a note, and what to offer when it names none: a note's title as
// written, and the notes a mistyped ref most likely meant. A resident process keeps every note's
// title (src/corpus/note/note-meta.ts) and looks there; a fresh process asks the grep port for
// the notes whose title line holds the ref's words and reads those only, so a miss in a corpus of
// 50,000 notes reads a few notes, not all of them.

/** What a look-up by title needs of a note. */
export interface Titled {
  path: string;
  title: string;
  uuid: string;
  superseded_by: string | null;
}

/** The words of a text as a title line holds them (letters and digits, lowercase), longest first. */
function words(text: string): string[] {
  return [
    ...new Set(
      text
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length > 1),
    ),
  ].sort((a, b) => b.length - a.length);
}

/**
 * The notes whose title may be, or share words with, `ref`: every note a resident process keeps,
 * else those the grep port finds with one of the ref's three longest words on their title line
 * (one search for both look-ups of a ref that names no note by name), read once.
 */
export function refTitleCandidates(root: string, ref: string): () => Titled[] {
  let found: Titled[] | undefined;
  return () => (found ??= titleCandidates(root, words(ref).slice(0, 3)));
}

/**
 * The notes whose title may hold one of `probes` (lowercase words or their starts): every note a
 * resident process keeps, else those the grep port finds with one on their title line, read once.
 */
export function titleCandidates(root: string, probes: string[]): Titled[] {
  const kept = keptNoteMetas(root);
  if (kept) return kept;
  if (!probes.length) return [];
  const patterns = probes.map((w) => `^title:.*${escapeRegExp(w)}`);
  return candidateFiles(root, patterns, { fixed: false }).flatMap((name) => readNoteFile(root, name) ?? []);
}

/** The notes of `candidates` whose frontmatter title is `title`, compared as names are (case and runs of spaces aside). */
export function notesTitled(candidates: Titled[], title: string): Titled[] {
  const want = nameKey(title);
  return want ? candidates.filter((n) => nameKey(n.title) === want) : [];
}

/** How many notes an unknown ref suggests at most. */
const SUGGESTIONS = 3;

/**
 * The notes a ref that names none most likely meant: those whose undated slug is a few edits from
 * the ref's slug (`dana-whitfeld` for `dana-whitfield`), closest first, then those whose title
 * holds at least half of the ref's words; current notes before superseded ones.
 */
export function likelyNotes(root: string, ref: string, candidates: Titled[]): Titled[] {
  const slug = slugify(ref);
  if (!slug) return [];
  const most = Math.max(1, Math.min(3, Math.floor(slug.length / 4)));
  const near = listNoteFiles(root)
    .map((path) => ({ path, d: editDistance(slug, undatedSlug(path) ?? '', most) }))
    .filter((c) => c.d <= most)
    .sort((a, b) => a.d - b.d || a.path.localeCompare(b.path))
    .slice(0, SUGGESTIONS * 3)
    .flatMap((c) => {
      const n = readNoteFile(root, c.path);
      return n ? [{ n: n as Titled, score: 10 - c.d }] : [];
    });
  const asked = words(ref);
  const byTitle = asked.length
    ? candidates.flatMap((n) => {
        const title = new Set(words(n.title));
        const shared = asked.filter((w) => title.has(w)).length / asked.length;
        return shared >= 0.5 ? [{ n, score: shared * 5 }] : [];
      })
    : [];
  const rank = (s: { n: Titled; score: number }) => s.score + (s.n.superseded_by ? 0 : 0.5);
  const seen = new Set<string>();
  return [...near, ...byTitle]
    .sort((a, b) => rank(b) - rank(a) || a.n.path.localeCompare(b.n.path))
    .filter((s) => !seen.has(s.n.path) && Boolean(seen.add(s.n.path)))
    .slice(0, SUGGESTIONS)
    .map((s) => ({ path: s.n.path, title: s.n.title, uuid: s.n.uuid, superseded_by: s.n.superseded_by }));
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
