import crypto from 'node:crypto';
import { settings } from '../../context.js';
import { ZkError } from '../../errors.js';
import { withCorpusLock } from '../lock/lock.js';
import type { HeldLock } from '../lock/held-lock.js';
import { readNoteFile, type Note } from '../note/notes.js';
import { noteByUuid, resolveRef, successors } from '../graph/refs.js';
import { writeNote, type WriteOptions } from './ops.js';
import { rewriteKeys } from './keys.js';
import { trace } from '../trace/trace.js';

/** A note's uuid, minting one into its frontmatter when it has none. */
async function ensureUuid(root: string, lock: HeldLock, note: Note): Promise<Note> {
  if (note.uuid) return note;
  const minted = await rewriteKeys(root, lock, note, { uuid: crypto.randomUUID() }, { first: true });
  trace(root, 'mint', { path: note.path, uuid: minted.uuid });
  return minted;
}

/** Test seam: `supersede-after-create` dies between creating the new note and marking the old one. */
function crashAfterCreate(): void {
  if (settings().fault() === 'supersede-after-create') process.kill(process.pid, 'SIGKILL');
}

export interface SupersedeOutcome {
  action: 'superseded' | 'noop';
  old: Note;
  new: Note;
}

/**
 * Mark `oldRef` as superseded by `newRef`: the old note gets `superseded_by`, the new one lists it
 * under `supersedes`; both stay. Self-supersession, cycles and re-pointing are refused.
 */
export async function supersede(root: string, oldRef: string, newRef: string): Promise<SupersedeOutcome> {
  return withCorpusLock(root, async (lock) => {
    let oldNote = resolveRef(root, oldRef);
    let newNote = resolveRef(root, newRef);
    if (oldNote.path === newNote.path) throw new ZkError('refused', `a note cannot supersede itself: ${oldNote.path}`);
    oldNote = await ensureUuid(root, lock, oldNote);
    newNote = await ensureUuid(root, lock, newNote);
    if (oldNote.superseded_by) {
      if (oldNote.superseded_by.toLowerCase() === newNote.uuid.toLowerCase()) return { action: 'noop', old: oldNote, new: newNote };
      throw alreadySuperseded(root, oldNote);
    }
    if (successors(root, newNote).some((n) => n.uuid === oldNote.uuid)) {
      throw new ZkError('refused', `superseding ${oldNote.path} by ${newNote.path} would make a cycle`);
    }
    const supersedes = [...new Set([...newNote.supersedes, oldNote.uuid])];
    newNote = await rewriteKeys(root, lock, newNote, { supersedes });
    oldNote = await rewriteKeys(root, lock, oldNote, { superseded_by: newNote.uuid });
    trace(root, 'supersede', { old: oldNote.path, old_uuid: oldNote.uuid, new: newNote.path, new_uuid: newNote.uuid });
    return { action: 'superseded', old: oldNote, new: newNote };
  });
}

/** The refusal names the successor by file name when it can be found (a bare uuid says little). */
function alreadySuperseded(root: string, note: Note): ZkError {
  const next = note.superseded_by ? noteByUuid(root, note.superseded_by) : undefined;
  return new ZkError('refused', `${note.path} is already superseded by ${next ? `${next.path} (${next.title})` : note.superseded_by}`);
}

/**
 * Create a note that supersedes an existing one, in one locked step: of writers racing to
 * supersede one note, exactly one creates its note; the others are refused and create nothing.
 * A crash between the two writes leaves a new note whose `supersedes` the old note does not
 * answer: `tend check` reports it and `tend repair --write` completes it.
 */
export async function writeSuperseding(root: string, o: WriteOptions, oldRef: string): Promise<SupersedeOutcome> {
  return withCorpusLock(root, async (lock) => {
    let old = resolveRef(root, oldRef);
    if (old.superseded_by) throw alreadySuperseded(root, old);
    old = await ensureUuid(root, lock, old);
    const created = writeNote(root, { ...o, supersedes: [old.uuid] }, lock);
    crashAfterCreate();
    old = await rewriteKeys(root, lock, old, { superseded_by: created.uuid });
    trace(root, 'supersede', { old: old.path, old_uuid: old.uuid, new: created.path, new_uuid: created.uuid });
    return { action: 'superseded', old, new: created };
  });
}
