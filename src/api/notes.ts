import { ZkError } from '../errors.js';
import { initCorpus } from '../corpus/ops/init.js';
import { listNotes, type ListOptions } from '../corpus/ops/list.js';
import { appendFragment } from '../corpus/ops/merge.js';
import { writeNote, type WriteOptions } from '../corpus/ops/write.js';
import { noteInfo, type NoteInfo } from '../corpus/note/notes.js';
import { supersede as supersedeNotes, writeSuperseding, type SupersedeOptions } from '../corpus/ops/supersede.js';
import { mergeCommit, supersedeCommit, writeCommit } from './commit-message.js';
import type { MergeResult, SupersedeResult, WriteResult } from './results.js';
import { committing } from './commit.js';
import { similarNotes } from './similar.js';

// The library's note operations: typed options in, the objects `--json` prints out (without `ok`).
// The CLI and the MCP server both call these; neither builds a command line for the other.

export interface InitResult {
  action: 'created' | 'exists';
  root: string;
}

/** Create a corpus (or complete an existing one). */
export function init(dir: string): InitResult {
  const r = initCorpus(dir);
  return { action: r.created ? 'created' : 'exists', root: r.root };
}

export interface WriteRequest extends Omit<WriteOptions, 'supersedes'> {
  /** A ref of a note the new one replaces (it is kept, marked superseded). */
  supersedes?: string;
}

/**
 * Create a note; with `supersedes`, the new note replaces an existing one. The answer names the
 * live notes whose title is like the new one's (`similar`): written anyway, it may repeat one.
 */
export async function write(root: string, o: WriteRequest): Promise<WriteResult> {
  const r = await committing(root, () => writeUncommitted(root, o), writeCommit);
  return { ...r, similar: similarNotes(root, r.note) };
}

async function writeUncommitted(root: string, o: WriteRequest): Promise<Omit<WriteResult, 'similar'>> {
  const { supersedes, ...options } = o;
  if (supersedes !== undefined) {
    const r = await writeSuperseding(root, options, supersedes);
    return { action: 'superseded', note: noteInfo(r.new), target: noteInfo(r.old) };
  }
  return { action: 'created', note: noteInfo(writeNote(root, options)) };
}

/** Append a dated fragment to a note. */
export async function merge(root: string, ref: string, fragment: string, o: { source?: string; date?: string } = {}): Promise<MergeResult> {
  return committing(
    root,
    async () => {
      const note = noteInfo(await appendFragment(root, ref, fragment, o));
      return { action: 'merged' as const, note, target: note };
    },
    mergeCommit,
  );
}

export interface ListRequest extends ListOptions {
  /** At most this many notes (after `offset`). */
  limit?: number;
  /** Skip this many notes first. */
  offset?: number;
}

export interface ListResult {
  notes: NoteInfo[];
  /** How many notes matched before `offset` and `limit` were applied. */
  total: number;
  /** The day or moment the list is as of, when one was asked for. */
  as_of?: string;
}

/** Notes in file-name order, or the most recently changed first; a page of them with offset and limit. */
export function list(root: string, o: ListRequest = {}): ListResult {
  const { limit, offset = 0, ...filters } = o;
  const all = listNotes(root, filters);
  const page = all.slice(offset, limit === undefined ? undefined : offset + limit);
  return { notes: page.map(noteInfo), total: all.length, ...(o.asOf !== undefined ? { as_of: o.asOf } : {}) };
}

/** Mark `oldRef` as replaced by `newRef`; both notes stay. With `validFrom`, the new note holds true from then. */
export async function supersede(root: string, oldRef: string, newRef: string, o: SupersedeOptions = {}): Promise<SupersedeResult> {
  if (!newRef?.trim()) throw new ZkError('usage', 'supersede needs the note that replaces the old one');
  return committing(
    root,
    async () => {
      const r = await supersedeNotes(root, oldRef, newRef, o);
      return { action: r.action, old: noteInfo(r.old), new: noteInfo(r.new) };
    },
    supersedeCommit,
  );
}
