import { notesHeldAt } from '../graph/held-at.js';
import { loadNoteMetas, type NoteMeta } from '../note/note-meta.js';
import { timeAsked } from '../note/moments.js';
import { checkKind } from '../note/kinds.js';

export interface ListOptions {
  kind?: string;
  recent?: number;
  history?: boolean;
  /** The notes held at the end of this day (or at this moment), each as it stood then (src/corpus/graph/held-at.ts). */
  asOf?: string;
}

/**
 * Notes in file-name order; `recent` keeps the N most recently modified (newest first). Their
 * fields come from the note metadata cache where there is one (only changed notes are read).
 */
export function listNotes(root: string, o: ListOptions = {}): NoteMeta[] {
  const kind = checkKind(o.kind);
  const held = o.asOf === undefined ? loadNoteMetas(root) : notesHeldAt(root, loadNoteMetas(root), timeAsked(o.asOf, 'as-of date'));
  let notes = held.filter((n) => (o.history || !n.superseded_by) && (!kind || n.kind === kind));
  if (o.recent !== undefined) {
    notes = notes.sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path)).slice(0, o.recent);
  }
  return notes;
}
