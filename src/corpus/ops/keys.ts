import { ZkError } from '../../errors.js';
import { removeKeyEdit, setKeyEdit } from '../note/frontmatter.js';
import { applyEdits } from '../note/text-edits.js';
import type { HeldLock } from '../files/held-lock.js';
import { noteFromText, readNoteFile, type Note } from '../note/notes.js';
import { readStateOf, replaceIfUnchanged } from '../files/swap.js';
import { now } from '../../context.js';
import { momentText } from '../note/moments.js';

/** Frontmatter keys to set; a key whose value is `undefined` is removed. */
export type KeyValues = Record<string, unknown>;

/**
 * The keys that mark a note superseded by `uuid`, with the moment it happened
 * (docs/format.md#time); without a uuid, the keys that make it the current belief again. Every
 * writer of `superseded_by` sets both in one replacement.
 */
export function supersededKeys(uuid: string | undefined): KeyValues {
  return uuid ? { superseded_by: uuid, superseded_at: momentText(now()) } : { superseded_by: undefined, superseded_at: undefined };
}

export interface KeyRewrite {
  /** Add a missing key as the first rather than the last (as for a uuid). */
  first?: boolean;
  /** Text appended to the note in the same replacement (a merge fragment): the keys and it land together or not at all. */
  append?: string;
}

/**
 * A note's text with its frontmatter keys set (or removed), every other byte kept; undefined when
 * its frontmatter cannot be edited (it is not valid YAML). Each key is edited on the text as it
 * stands after the previous one, so offsets stay true.
 */
export function withKeys(root: string, note: Note, values: KeyValues, o: { first?: boolean } = {}): Note | undefined {
  let current = note;
  for (const [key, value] of Object.entries(values)) {
    const edit = value === undefined ? removeKeyEdit(current, key) : setKeyEdit(current, key, value, o);
    if (!edit) return undefined;
    current = noteFromText(root, note.file, applyEdits(current.raw, [edit]), 0, 0);
  }
  return current;
}

/**
 * Rewrite a note's frontmatter keys under the lock, keeping every other byte; the file is replaced
 * only if it still holds the bytes the edit was made from. `values` may be worked out from the note
 * as it stands at each attempt (a list that grows).
 */
export async function rewriteKeys(root: string, lock: HeldLock, note: Note, values: KeyValues | ((n: Note) => KeyValues), o: KeyRewrite = {}): Promise<Note> {
  for (let attempt = 0, base = note; attempt < 5; attempt++) {
    const edited = withKeys(root, base, typeof values === 'function' ? values(base) : values, o);
    if (!edited) throw new ZkError('refused', `cannot rewrite the frontmatter of ${note.path}: it is not valid YAML`);
    if (await replaceIfUnchanged(lock, readStateOf(base), edited.raw + (o.append ?? ''))) return readNoteFile(root, note.path) ?? edited;
    const fresh = readNoteFile(root, note.path);
    if (!fresh) throw new ZkError('refused', `${note.path} vanished while its frontmatter was being rewritten`);
    base = fresh;
  }
  throw new ZkError('busy', `corpus busy: ${note.path} kept changing while its frontmatter was being rewritten`);
}
