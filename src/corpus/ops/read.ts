import { linkGraph, type Backlink, type ResolvedLink } from '../graph/link-graph.js';
import type { Note } from '../note/notes.js';
import { resolveRef } from '../graph/refs.js';
import { supersession, type ChainNote } from '../graph/supersession.js';
import { noteHeldAt, supersessionAt } from '../graph/held-at.js';
import { timeAsked } from '../note/moments.js';
import { timeline, type Belief } from '../graph/timeline.js';

// Reading one note with its links: kept apart from the write operations (src/corpus/ops/write.ts, merge.ts), as
// resolving links loads the Markdown parser, which writing, merging and listing never need.

export interface NoteWithLinks {
  note: Note;
  links: ResolvedLink[];
  /** The notes that link to this one (by any form of link), one entry per note. */
  backlinks: Backlink[];
  /** The notes that replaced this one, oldest first, archived ones too (the last is the current belief unless archived). */
  chain: ChainNote[];
  /** The notes this one replaced, live or archived. */
  replaces: ChainNote[];
}

/**
 * A note with its links resolved to the titles of their targets, and the notes linking to it;
 * with `asOf`, the note as it stood then (see `noteHeldAt`): an archived note too, its path under
 * `.archive/`, its links those of its text then.
 */
export function readNote(root: string, ref: string, o: { asOf?: string } = {}): NoteWithLinks {
  if (o.asOf !== undefined) {
    const at = timeAsked(o.asOf, 'as-of date');
    const { note } = noteHeldAt(root, ref, at, o.asOf);
    return { note, ...linkGraph(root, note), ...supersessionAt(root, note, at) };
  }
  const note = resolveRef(root, ref);
  const { links, backlinks } = linkGraph(root, note);
  return { note, links, backlinks, ...supersession(root, note) };
}

/** The beliefs about the subject of the note `ref` names, oldest first (see `timeline`). */
export function readTimeline(root: string, ref: string): Belief[] {
  return timeline(root, resolveRef(root, ref));
}
