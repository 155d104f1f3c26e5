import { loadNoteMetas } from '../corpus/note/note-meta.js';
import { stem, wordsOf } from '../search/terms.js';
import type { SimilarNote } from './results.js';

// Titles that name the same subject (docs/format.md#similar-titles): two titles are similar when
// they have the same set of words once case, accents, punctuation, word order and word endings
// are set aside ("Judy's cats" and "judy cat" are one; "Judy lives in Paris" and "Judy lives in
// London" are not). Each word is reduced to its Porter2 stem, as search does.

const ASCII = /^[\x00-\x7f]*$/;

/** An English possessive ending: "Judy's" is a word about Judy, not two words. */
const POSSESSIVE = /['\u2019]s\b/gi;

/** A title's words, lowercase, accents set aside (most titles are ASCII: they skip the normalizing). */
function titleWords(title: string): string[] {
  const text = title.replace(POSSESSIVE, '');
  return ASCII.test(text) ? text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean) : wordsOf(text.normalize('NFKD').replace(/\p{M}/gu, ''));
}

/**
 * The first letters of a set of words, as bits. A stem keeps its word's first letter, so two
 * titles with the same stems have the same first letters: a cheap test that rules out almost
 * every title before any word of it is stemmed.
 */
function initials(words: Iterable<string>): number {
  let bits = 0;
  for (const w of words) bits |= 1 << (w.charCodeAt(0) % 31);
  return bits;
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/**
 * The live (not superseded) notes other than `note` whose title is similar to its title, in
 * file-name order. Titles come from the note metadata `list` uses (only changed notes are read).
 */
export function similarNotes(root: string, note: { path: string; title: string }): SimilarNote[] {
  const stems = new Set(titleWords(note.title).map(stem));
  if (!stems.size) return [];
  const bits = initials(stems);
  const out: SimilarNote[] = [];
  for (const m of loadNoteMetas(root)) {
    if (m.superseded_by || m.path === note.path) continue;
    const words = titleWords(m.title);
    if (initials(words) !== bits || !sameSet(new Set(words.map(stem)), stems)) continue;
    out.push({ path: m.path, title: m.title, uuid: m.uuid });
  }
  return out;
}
