import { notesHeldAt } from '../graph/held-at.js';
import { keptMetasBuilt, loadNoteMetas, type NoteMeta } from '../note/note-meta.js';
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
 * fields come from the note metadata cache where there is one (only changed notes are read). The
 * list may be one a resident process keeps: not for the caller to change.
 */
export function listNotes(root: string, o: ListOptions = {}): readonly NoteMeta[] {
  const kind = checkKind(o.kind);
  const history = Boolean(o.history);
  const held = o.asOf === undefined ? liveNotes(root, history) : shown(notesHeldAt(root, loadNoteMetas(root), timeAsked(o.asOf, 'as-of date')), history);
  const notes = kind ? held.filter((n) => n.kind === kind) : held;
  return o.recent === undefined ? notes : newest(notes, o.recent);
}

/** The notes a list shows: every one with `history`, else the current ones. */
const shown = (metas: readonly NoteMeta[], history: boolean) => (history ? metas : metas.filter((n) => !n.superseded_by));

/**
 * The notes a list shows now: a resident process keeps them until a note changes, so that a page
 * of a million notes is not a pass over all of them.
 */
function liveNotes(root: string, history: boolean): readonly NoteMeta[] {
  const pick = (metas: readonly NoteMeta[]) => shown(metas, history);
  return keptMetasBuilt(root, history ? 'every note' : 'current notes', pick) ?? pick(loadNoteMetas(root));
}

const newer = (a: NoteMeta, b: NoteMeta) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path);

/** The `k` most recently modified notes, newest first: a few are picked in one pass, not by sorting every note. */
function newest(notes: readonly NoteMeta[], k: number): NoteMeta[] {
  if (k <= 0) return [];
  if (k > PICKED_AT_MOST) return [...notes].sort(newer).slice(0, k);
  const top: NoteMeta[] = [];
  for (const n of notes) {
    if (top.length === k && newer(n, top[k - 1]) >= 0) continue;
    let at = top.length;
    while (at > 0 && newer(n, top[at - 1]) < 0) at--;
    top.splice(at, 0, n);
    if (top.length > k) top.pop();
  }
  return top;
}

/** Above this many, the newest notes are found by sorting them all (picking costs up to `k` steps a note). */
const PICKED_AT_MOST = 100;
