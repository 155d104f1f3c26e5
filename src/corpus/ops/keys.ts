import { ZkError } from '../../errors.js';
import type { HeldLock } from '../lock/held-lock.js';
import { setKeyEdit } from '../note/frontmatter.js';
import { noteFromText, readNoteFile, type Note } from '../note/notes.js';
import { applyEdits } from '../note/text-edits.js';
import { readStateOf, replaceIfUnchanged } from '../files/swap.js';

export interface KeyRewrite {
  /** Add a missing key as the first rather than the last (as for a uuid). */
  first?: boolean;
  /** Text appended to the note in the same replacement (a merge fragment): the keys and it land together or not at all. */
  append?: string;
}

/**
 * Rewrite a note's frontmatter keys under the lock, keeping every other byte; the file is replaced
 * only if it still holds the bytes the edit was made from.
 */
export async function rewriteKeys(root: string, lock: HeldLock, note: Note, values: Record<string, unknown> | ((n: Note) => Record<string, unknown>), o: KeyRewrite = {}): Promise<Note> {
  for (let attempt = 0, base = note; attempt < 5; attempt++) {
    let current = base;
    // Each key is edited on the text as it stands after the previous one, so offsets stay true.
    for (const [key, value] of Object.entries(typeof values === 'function' ? values(base) : values)) {
      const edit = setKeyEdit(current, key, value, o);
      if (!edit) throw new ZkError('refused', `cannot rewrite the frontmatter of ${note.path}: it is not valid YAML`);
      current = noteFromText(root, note.file, applyEdits(current.raw, [edit]), 0, 0);
    }
    if (await replaceIfUnchanged(lock, readStateOf(base), current.raw + (o.append ?? ''))) return readNoteFile(root, note.path) ?? current;
    const fresh = readNoteFile(root, note.path);
    if (!fresh) throw new ZkError('refused', `${note.path} vanished while its frontmatter was being rewritten`);
    base = fresh;
  }
  throw new ZkError('busy', `corpus busy: ${note.path} kept changing while its frontmatter was being rewritten`);
}
