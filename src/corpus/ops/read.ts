import { linkGraph, type Backlink, type ResolvedLink } from '../graph/link-graph.js';
import type { Note, NoteInfo } from '../note/notes.js';
import { resolveRef, supersession } from '../graph/refs.js';

// Reading one note with its links: kept apart from the write operations (src/corpus/ops/ops.ts), as
// resolving links loads the Markdown parser, which writing, merging and listing never need.


export interface NoteWithLinks {
  note: Note;
  links: ResolvedLink[];
  /** The notes that link to this one (by any form of link), one entry per note. */
  backlinks: Backlink[];
  /** The notes that replaced this one, oldest first (the last is the current belief). */
  chain: NoteInfo[];
  /** The notes this one replaced (live or archived). */
  replaces: NoteInfo[];
}

/** A note with its links resolved to the titles of their targets, and the notes linking to it. */
export function readNote(root: string, ref: string): NoteWithLinks {
  const note = resolveRef(root, ref);
  const { links, backlinks } = linkGraph(root, note);
  return { note, links, backlinks, ...supersession(root, note) };
}
