import crypto from 'node:crypto';
import { ZkError } from '../../errors.js';
import { withCorpusLock } from '../lock/lock.js';
import type { HeldLock } from '../files/held-lock.js';
import type { Note } from '../note/notes.js';
import { resolveRef, successors } from '../graph/refs.js';
import { succession } from '../graph/supersession.js';
import { hint } from '../../hints.js';
import { writeNote, type WriteOptions } from './write.js';
import { rewriteKeys, supersededKeys } from './keys.js';
import { trace } from '../trace/trace.js';
import { checkedValidity } from './validity.js';
import { crashAt } from './fault.js';

/** A note's uuid, minting one into its frontmatter when it has none. */
async function ensureUuid(root: string, lock: HeldLock, note: Note): Promise<Note> {
  if (note.uuid) return note;
  const minted = await rewriteKeys(root, lock, note, { uuid: crypto.randomUUID() }, { first: true });
  trace(root, 'mint', { path: note.path, uuid: minted.uuid });
  return minted;
}

export interface SupersedeOutcome {
  action: 'superseded' | 'noop';
  old: Note;
  new: Note;
}

export interface SupersedeOptions {
  /** From when the new note holds true (a day or a moment): written on it as `valid_from`. */
  validFrom?: string;
}

/**
 * Mark `oldRef` as superseded by `newRef`: the old note gets `superseded_by` and `superseded_at`,
 * the new one lists it under `supersedes` (and gets `valid_from` when given); both stay.
 * Self-supersession, cycles and re-pointing are refused.
 */
export async function supersede(root: string, oldRef: string, newRef: string, o: SupersedeOptions = {}): Promise<SupersedeOutcome> {
  return withCorpusLock(root, async (lock) => {
    let oldNote = resolveRef(root, oldRef);
    let newNote = resolveRef(root, newRef);
    if (oldNote.path === newNote.path) throw new ZkError('refused', `a note cannot supersede itself: ${oldNote.path}`);
    const validity = checkedValidity({ validFrom: o.validFrom }, newNote.times.valid_until);
    oldNote = await ensureUuid(root, lock, oldNote);
    newNote = await ensureUuid(root, lock, newNote);
    if (oldNote.superseded_by?.toLowerCase() === newNote.uuid.toLowerCase()) {
      // Superseded already: only a validity not yet written is news.
      if (!validity.valid_from || validity.valid_from === newNote.times.valid_from) return { action: 'noop', old: oldNote, new: newNote };
      newNote = await rewriteKeys(root, lock, newNote, validity);
      return { action: 'superseded', old: oldNote, new: newNote };
    }
    refuseIfReplaced(root, oldNote);
    if (successors(root, newNote).some((n) => n.uuid === oldNote.uuid)) {
      throw new ZkError('refused', `superseding ${oldNote.path} by ${newNote.path} would make a cycle`);
    }
    const supersedes = [...new Set([...newNote.supersedes, oldNote.uuid])];
    newNote = await rewriteKeys(root, lock, newNote, { supersedes, ...validity });
    oldNote = await rewriteKeys(root, lock, oldNote, supersededKeys(newNote.uuid));
    trace(root, 'supersede', { old: oldNote.path, old_uuid: oldNote.uuid, new: newNote.path, new_uuid: newNote.uuid });
    return { action: 'superseded', old: oldNote, new: newNote };
  });
}

/**
 * Refuse to supersede a note that something live replaces already, naming the current note to
 * supersede instead. A note whose successor is gone (archived with nothing live after it, or in no
 * note) is the current belief again, and may be superseded.
 */
function refuseIfReplaced(root: string, note: Note): void {
  if (!note.superseded_by) return;
  const chain = succession(root, note);
  const current = chain.filter((h) => !h.archived).at(-1)?.note;
  if (!current) return;
  const [next] = chain;
  if (!next.archived) {
    throw new ZkError('refused', `${note.path} is already superseded by ${next.note.path} (${next.note.title}); ${hint('supersedeCurrent', current.path)}`);
  }
  throw new ZkError(
    'refused',
    `${note.path} is already superseded by .archive/${next.note.path} (archived), and the current note is ${current.path} (${current.title}): ${hint('supersedeCurrent', current.path)}; ${hint('repairLinks')} re-links ${note.path} past the archived note`,
  );
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
    refuseIfReplaced(root, old);
    old = await ensureUuid(root, lock, old);
    const created = writeNote(root, { ...o, supersedes: [old.uuid] }, lock);
    // Test seam: dies between creating the new note and marking the old one.
    crashAt('supersede-after-create');
    old = await rewriteKeys(root, lock, old, supersededKeys(created.uuid));
    trace(root, 'supersede', { old: old.path, old_uuid: old.uuid, new: created.path, new_uuid: created.uuid });
    return { action: 'superseded', old, new: created };
  });
}
