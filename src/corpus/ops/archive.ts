import fs from 'node:fs';
import path from 'node:path';
import { now, recordChange } from '../../context.js';
import { createFileExclusive, sidecarDir } from '../files/files.js';
import { parseNoteText } from '../note/format.js';
import { momentText } from '../note/moments.js';
import type { HeldLock } from '../files/held-lock.js';
import { noteFromText, type Note } from '../note/notes.js';
import { relToRoot, sidecar } from '../files/paths.js';
import { supersededKeys, withKeys, type KeyValues } from './keys.js';

/**
 * A note's text with frontmatter keys set, every other byte kept; the text as it is when its
 * frontmatter is not valid YAML (it is archived as it stands).
 */
function keyed(root: string, name: string, text: string, values: KeyValues): string {
  if (parseNoteText(text).yamlError) return text;
  return withKeys(root, noteFromText(root, name, text, 0, 0), values)?.raw ?? text;
}

/**
 * The archive folder, made when missing; a symlink or a file planted at `.archive` (a pushed one
 * would carry notes out of the corpus) is refused. A pipeline that writes before it archives asks
 * first, so it stops before writing anything.
 */
export const archiveFolder = (root: string): string => sidecarDir(sidecar(root).archive);

/**
 * Move a note into `.archive/` under a name nothing else has (`x.md`, `x-2.md`, …); an archived
 * note is never overwritten. The archived copy records when it was archived (`archived_at`,
 * docs/format.md#time). Call under the corpus lock. Returns the archive path relative to root.
 */
export function archiveNote(root: string, name: string, content?: string, lock?: HeldLock): string {
  const dir = archiveFolder(root);
  const src = path.join(root, name);
  const text = keyed(root, name, content ?? fs.readFileSync(src, 'utf8'), { archived_at: momentText(now()) });
  const stem = name.replace(/\.md$/, '');
  for (let n = 1; ; n++) {
    const dest = path.join(dir, n === 1 ? name : `${stem}-${n}.md`);
    if (createFileExclusive(root, dest, text, lock)) {
      fs.rmSync(src, { force: true });
      recordChange({ path: src, what: 'archived', to: dest });
      return relToRoot(root, dest);
    }
  }
}

/**
 * Archive a note marked `superseded_by` the note that replaces it (with `superseded_at`), so links
 * to it can be followed to its successor; a note whose frontmatter cannot be edited is archived as
 * it is. Call under the corpus lock.
 */
export function archiveReplaced(root: string, note: Note, successorUuid: string, lock?: HeldLock): string {
  const text = successorUuid ? keyed(root, note.path, note.raw, supersededKeys(successorUuid)) : note.raw;
  return archiveNote(root, note.path, text, lock);
}
