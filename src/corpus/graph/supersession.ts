import fs from 'node:fs';
import { sidecar } from '../files/paths.js';
import { noteInfo, type Note, type NoteInfo } from '../note/notes.js';
import { noteByUuid, notesWithUuidPrefix } from './refs.js';

// Where a note stands among the notes that replace one another, the archive included: a note that
// was archived is out of the corpus, but the chain it was part of still passes through it.

/** How many supersession steps are followed at most (a chain longer than this is cut there). */
const MAX_STEPS = 64;

/** A note found by its uuid: live in the root, or archived in `.archive/`. */
export interface Held {
  note: Note;
  archived: boolean;
}

/** A note named in a supersession, as read and log show it: an archived one's path is under `.archive/`. */
export interface ChainNote extends NoteInfo {
  archived: boolean;
}

/** The archived note holding exactly this uuid; of two copies, the one that knows its successor. */
export function archivedByUuid(root: string, uuid: string): Note | undefined {
  const dir = sidecar(root).archive;
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  const want = uuid.toLowerCase();
  const held = notesWithUuidPrefix(dir, want).filter((n) => n.uuid.toLowerCase() === want);
  return held.find((n) => n.superseded_by) ?? held[0];
}

/** The note holding a uuid: the live one, else the archived one. */
export function noteHolding(root: string, uuid: string): Held | undefined {
  const live = noteByUuid(root, uuid);
  if (live) return { note: live, archived: false };
  const archived = archivedByUuid(root, uuid);
  return archived ? { note: archived, archived: true } : undefined;
}

/** The notes that replaced `note`, oldest first, followed through the archive; stops at a missing link or a loop. */
export function succession(root: string, note: Note): Held[] {
  const chain: Held[] = [];
  const seen = new Set([note.uuid.toLowerCase()]);
  for (let at = note; at.superseded_by && chain.length < MAX_STEPS; ) {
    const next = noteHolding(root, at.superseded_by);
    if (!next || seen.has(next.note.uuid.toLowerCase())) break;
    chain.push(next);
    seen.add(next.note.uuid.toLowerCase());
    at = next.note;
  }
  return chain;
}

/**
 * The live note that took over from `note`: the first live one among the notes that replaced it
 * (past any that were archived). Undefined when nothing live replaces it.
 */
export function liveSuccessor(root: string, note: Note): Note | undefined {
  return succession(root, note).find((h) => !h.archived)?.note;
}

function chainNote(h: Held): ChainNote {
  const info = noteInfo(h.note);
  return { ...info, path: h.archived ? `.archive/${info.path}` : info.path, archived: h.archived };
}

/**
 * Where `note` stands among the notes that replace one another: the notes that replaced it, oldest
 * first (the last is the current belief unless it was archived), and those it replaced, live or
 * archived, that are still found.
 */
export function supersession(root: string, note: Note): { chain: ChainNote[]; replaces: ChainNote[] } {
  return {
    chain: succession(root, note).map(chainNote),
    replaces: note.supersedes.flatMap((uuid) => {
      const old = noteHolding(root, uuid);
      return old ? [chainNote(old)] : [];
    }),
  };
}
