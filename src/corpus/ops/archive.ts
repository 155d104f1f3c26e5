import fs from 'node:fs';
import path from 'node:path';
import { recordChange } from '../../context.js';
import { createFileExclusive } from '../files/files.js';
import { setKeyEdit } from '../note/frontmatter.js';
import { applyEdits } from '../note/text-edits.js';
import type { HeldLock } from '../lock/held-lock.js';
import type { Note } from '../note/notes.js';
import { relToRoot, sidecar } from '../files/paths.js';

/**
 * Move a note into `.archive/` under a name nothing else has (`x.md`, `x-2.md`, …); an archived
 * note is never overwritten. Call under the corpus lock. Returns the archive path relative to root.
 */
export function archiveNote(root: string, name: string, content?: string, lock?: HeldLock): string {
  const dir = sidecar(root).archive;
  fs.mkdirSync(dir, { recursive: true });
  const src = path.join(root, name);
  const text = content ?? fs.readFileSync(src, 'utf8');
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
 * Archive a note marked `superseded_by` the note that replaces it, so links to it can be followed
 * to its successor; a note whose frontmatter cannot be edited is archived as it is. Call under the
 * corpus lock.
 */
export function archiveReplaced(root: string, note: Note, successorUuid: string, lock?: HeldLock): string {
  const edit = successorUuid ? setKeyEdit(note, 'superseded_by', successorUuid) : undefined;
  return archiveNote(root, note.path, edit ? applyEdits(note.raw, [edit]) : note.raw, lock);
}
