import { keptMetasBuilt, loadNoteMetas, type NoteMeta } from '../corpus/note/note-meta.js';
import { titleCandidates, type Titled } from '../corpus/graph/ref-titles.js';
import { indexedNames } from '../corpus/files/name-index.js';
import { isNoteFile } from '../corpus/files/note-files.js';
import { readNoteFile } from '../corpus/note/notes.js';
import { stem } from '../search/terms.js';
import { titleKey, titleWords } from '../search/title-key.js';
import type { SimilarNote } from './results.js';
import { MultiMap } from '../corpus/multimap.js';

// Titles that name the same subject (docs/format.md#similar-titles, src/search/title-key.ts).

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

/** Every note's metadata by its title's key (`titleKey`): the notes whose titles are similar share one. */
export function byTitleKey(metas: readonly NoteMeta[]): MultiMap<string, NoteMeta> {
  const map = new MultiMap<string, NoteMeta>();
  for (const m of metas) followTitleKey(map, undefined, m);
  return map;
}

/** `byTitleKey` brought up to date with one note's change: a write adds one title, with no pass over every note's. */
export function followTitleKey(map: MultiMap<string, NoteMeta>, was: NoteMeta | undefined, now: NoteMeta | undefined): void {
  const wasKey = was && titleKey(was.title);
  if (wasKey !== undefined) map.remove(wasKey, was!, (a, b) => a.path === b.path);
  const key = now && titleKey(now.title);
  if (key !== undefined) map.add(key, now!);
}

/**
 * The notes whose title may be similar to one with these words: those a resident process keeps
 * under the title's key, else those the name index holds under it (src/corpus/files/name-index.ts),
 * else those the grep port finds with the start of the title's longest word on their title
 * line (a word keeps its stem's letters but perhaps the last, so a similar title holds them),
 * read once: a write in a fresh process searches the titles once rather than reading every note's
 * metadata. A title of short words only is compared with every note's.
 */
function candidates(root: string, title: string, words: string[]): Titled[] {
  // A resident process keeps every note's title, by its key: looked up there, the folder is not searched.
  const key = titleKey(title) ?? '';
  const kept = keptMetasBuilt(root, 'by-title-key', byTitleKey, followTitleKey);
  if (kept) return kept.get(key);
  // Else the name index names the notes whose titles share the title's key.
  const indexed = indexedNames(root, key);
  if (indexed) return indexed.flatMap((name) => (isNoteFile(root, name) ? (readNoteFile(root, name) ?? []) : []));
  const longest = [...words].sort((a, b) => b.length - a.length)[0] ?? '';
  const letters = Math.max(3, stem(longest).length - 1);
  // The word as the title writes it (accents kept, as the file holds them), its first letters.
  const written = title
    .toLowerCase()
    .normalize('NFC')
    .split(/[^\p{L}\p{N}]+/u)
    .find((w) => w.normalize('NFKD').replace(/\p{M}/gu, '') === longest);
  const probe = [...(written ?? longest)].slice(0, letters).join('');
  if ([...probe].length < 3) return loadNoteMetas(root);
  return titleCandidates(root, [probe]);
}

/**
 * The live (not superseded) notes other than `note` whose title is similar to its title, in
 * file-name order.
 */
export function similarNotes(root: string, note: { path: string; title: string }): SimilarNote[] {
  const words = titleWords(note.title);
  const stems = new Set(words.map(stem));
  if (!stems.size) return [];
  const bits = initials(stems);
  const out: SimilarNote[] = [];
  for (const m of candidates(root, note.title, words)) {
    if (m.superseded_by || m.path === note.path) continue;
    const theirs = titleWords(m.title);
    if (initials(theirs) !== bits || !sameSet(new Set(theirs.map(stem)), stems)) continue;
    out.push({ path: m.path, title: m.title, uuid: m.uuid });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
