import path from 'node:path';
import { addNames, namesKept, slugKey } from '../corpus/files/name-index.js';
import { undatedSlug } from '../corpus/markdown/note-names.js';
import { readNoteFile } from '../corpus/note/notes.js';
import { stem, wordsOf } from './terms.js';

// When two titles name the same subject (docs/format.md#similar-titles): they have the same set of
// words once case, accents, punctuation, word order and word endings are set aside ("Judy's cats"
// and "judy cat" are one; "Judy lives in Paris" and "Judy lives in London" are not). Each word is
// reduced to its Porter2 stem, as search does.

const ASCII = /^[\x00-\x7f]*$/;

/** An English possessive ending: "Judy's" is a word about Judy, not two words. */
const POSSESSIVE = /['\u2019]s\b/gi;

/** A title's words, lowercase, accents set aside (most titles are ASCII: they skip the normalizing). */
export function titleWords(title: string): string[] {
  const text = title.replace(POSSESSIVE, '');
  return ASCII.test(text)
    ? text
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean)
    : wordsOf(text.normalize('NFKD').replace(/\p{M}/gu, ''));
}

/** The stems of a title's words: two titles are similar when these are the same set. */
export function titleStems(title: string): Set<string> {
  return new Set(titleWords(title).map(stem));
}

/** The name index's key of a title (src/corpus/files/name-index.ts); undefined for a title of no words. */
export function titleKey(title: string): string | undefined {
  const stems = titleStems(title);
  return stems.size ? `t ${[...stems].sort().join(' ')}` : undefined;
}

/** What the name index holds of a note: its undated slug and its title's key, each with its file name. */
export function nameEntries(note: { path: string; title: string }): [string, string][] {
  const out: [string, string][] = [];
  const slug = undatedSlug(note.path);
  if (slug) out.push([slugKey(slug), note.path]);
  const key = titleKey(note.title);
  if (key) out.push([key, note.path]);
  return out;
}

/**
 * Add a note file the tool just created or replaced to the name index of its folder, when there is
 * one: read back, as a rename or a retitle by the tool changes what it holds. Never throws.
 */
export function namesWritten(file: string): void {
  const root = path.dirname(file);
  try {
    if (!namesKept(root)) return;
    const note = readNoteFile(root, path.basename(file));
    if (note) addNames(root, nameEntries(note));
  } catch {
    // derived: the next refresh that reads the note adds it
  }
}
