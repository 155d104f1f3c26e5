import crypto from 'node:crypto';
import { ZkError } from '../errors.js';
import { replaceFile } from './files.js';
import { applyEdits, setKeyEdit } from './frontmatter.js';
import { withCorpusLock } from './lock.js';
import { noteFromText, readNoteFile, type Note } from './notes.js';
import { resolveRef, successors } from './refs.js';
import { writeNote, type WriteOptions } from './ops.js';
import { trace } from './trace.js';

/** Rewrite a note's frontmatter keys (call under the lock), keeping every other byte. */
function rewriteKeys(root: string, note: Note, values: Record<string, unknown>, o: { first?: boolean } = {}): Note {
  let current = note;
  // Each key is edited on the text as it stands after the previous one, so offsets stay true.
  for (const [key, value] of Object.entries(values)) {
    const edit = setKeyEdit(current, key, value, o);
    if (!edit) throw new ZkError('refused', `cannot rewrite the frontmatter of ${note.path}: it is not valid YAML`);
    current = noteFromText(root, note.file, applyEdits(current.raw, [edit]), 0, 0);
  }
  replaceFile(root, note.file, current.raw);
  return readNoteFile(root, note.path) ?? current;
}

/** A note's uuid, minting one into its frontmatter when it has none. */
function ensureUuid(root: string, note: Note): Note {
  if (note.uuid) return note;
  const minted = rewriteKeys(root, note, { uuid: crypto.randomUUID() }, { first: true });
  trace(root, 'mint', { path: note.path, uuid: minted.uuid });
  return minted;
}

export interface SupersedeResult {
  action: 'superseded' | 'noop';
  old: Note;
  new: Note;
}

/**
 * Mark `oldRef` as superseded by `newRef`: the old note gets `superseded_by`, the new one lists it
 * under `supersedes`; both stay. Self-supersession, cycles and re-pointing are refused.
 */
export async function supersede(root: string, oldRef: string, newRef: string): Promise<SupersedeResult> {
  return withCorpusLock(root, () => {
    let oldNote = resolveRef(root, oldRef);
    let newNote = resolveRef(root, newRef);
    if (oldNote.path === newNote.path) throw new ZkError('refused', `a note cannot supersede itself: ${oldNote.path}`);
    oldNote = ensureUuid(root, oldNote);
    newNote = ensureUuid(root, newNote);
    if (oldNote.superseded_by) {
      if (oldNote.superseded_by.toLowerCase() === newNote.uuid.toLowerCase()) return { action: 'noop', old: oldNote, new: newNote };
      throw new ZkError('refused', `${oldNote.path} is already superseded by ${oldNote.superseded_by}`);
    }
    if (successors(root, newNote).some((n) => n.uuid === oldNote.uuid)) {
      throw new ZkError('refused', `superseding ${oldNote.path} by ${newNote.path} would make a cycle`);
    }
    const supersedes = [...new Set([...newNote.supersedes, oldNote.uuid])];
    newNote = rewriteKeys(root, newNote, { supersedes });
    oldNote = rewriteKeys(root, oldNote, { superseded_by: newNote.uuid });
    trace(root, 'supersede', { old: oldNote.path, old_uuid: oldNote.uuid, new: newNote.path, new_uuid: newNote.uuid });
    return { action: 'superseded', old: oldNote, new: newNote };
  });
}

/** Create a note that supersedes an existing one; the old note is checked before anything is written. */
export async function writeSuperseding(root: string, o: WriteOptions, oldRef: string): Promise<SupersedeResult> {
  const old = resolveRef(root, oldRef);
  if (old.superseded_by) throw new ZkError('refused', `${old.path} is already superseded by ${old.superseded_by}`);
  const created = writeNote(root, { ...o, supersedes: old.uuid ? [old.uuid] : undefined });
  return supersede(root, old.path, created.path);
}
