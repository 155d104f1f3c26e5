import { recordedMs, supersededWhen, validityWhen } from '../note/as-of.js';
import type { Note } from '../note/notes.js';
import { noteHolding, succession } from './supersession.js';

// The beliefs the memory held about one subject, one after another (docs/cli.md#read): the notes
// a note replaced and those that replaced it, through the archive, oldest first.

/** How many notes a timeline follows back at most. */
const MAX_BEFORE = 64;

/** One belief of a timeline: when it was recorded, superseded, and held true (days or moments as written). */
export interface Belief {
  path: string;
  title: string;
  uuid: string;
  /** The note's date. */
  recorded: string;
  /** When it was superseded (its `superseded_at`, else its successor's date); null while it is current. */
  superseded_at: string | null;
  /** When what it says became true (its `valid_from`, else its date). */
  valid_from: string | null;
  /** When it stopped being true (its `valid_until`, else when its successor became true); null when open. */
  valid_until: string | null;
  /** Whether nothing replaces it. */
  current: boolean;
}

/**
 * The live notes `note` replaced, directly or through others (archived ones are passed over, not
 * listed), oldest first.
 */
function replacedNotes(root: string, note: Note): Note[] {
  const found: Note[] = [];
  const seen = new Set([note.uuid.toLowerCase()]);
  for (let frontier = [note]; frontier.length && seen.size <= MAX_BEFORE; ) {
    const next: Note[] = [];
    for (const uuid of frontier.flatMap((n) => n.supersedes)) {
      if (seen.has(uuid.toLowerCase())) continue;
      seen.add(uuid.toLowerCase());
      const old = noteHolding(root, uuid);
      if (!old) continue;
      if (!old.archived) found.push(old.note);
      next.push(old.note);
    }
    frontier = next;
  }
  return found.sort((a, b) => (recordedMs(a) ?? 0) - (recordedMs(b) ?? 0) || (a.path < b.path ? -1 : 1));
}

function belief(n: Note, successor: Note | undefined): Belief {
  const valid = validityWhen(n, successor);
  return {
    path: n.path,
    title: n.title,
    uuid: n.uuid,
    recorded: n.date,
    superseded_at: supersededWhen(n, successor),
    valid_from: valid.from,
    valid_until: valid.until,
    current: !n.superseded_by,
  };
}

/** The beliefs about `note`'s subject: the live notes it replaced, itself, and the live notes that replaced it, oldest first. */
export function timeline(root: string, note: Note): Belief[] {
  const after = succession(root, note);
  const successorOf = (n: Note) => (n.superseded_by ? noteHolding(root, n.superseded_by)?.note : undefined);
  const before = replacedNotes(root, note).map((n) => belief(n, successorOf(n)));
  const own = belief(note, after[0]?.note);
  const later = after.flatMap((h, i) => (h.archived ? [] : [belief(h.note, after[i + 1]?.note ?? (h.note.superseded_by ? successorOf(h.note) : undefined))]));
  return [...before, own, ...later];
}
