import { ZkError } from '../../errors.js';
import { hint } from '../../hints.js';
import { archiveNote } from './archive.js';
import { candidateFiles } from '../graph/grep.js';
import { liveSuccessor } from '../graph/supersession.js';
import type { HeldLock } from '../files/held-lock.js';
import { readNoteFile, type Note } from '../note/notes.js';
import { rewriteKeys, supersededKeys } from './keys.js';
import { trace } from '../trace/trace.js';
import { escapeRegExp } from '../regex.js';
import { crashAt } from './fault.js';

// Archiving a note that is part of a chain (A superseded by B, B by C) takes it out of the chain:
// what it replaced is re-linked to what replaced it (A by C), or, when it was the current belief,
// made current again, so the subject never drops out of search with its belief in the archive.

/** A note re-linked because the note that replaced it was archived. */
export interface Relink {
  /** The note, as it is afterwards. */
  note: Note;
  /** What it is superseded by now; undefined: it is the current belief again. */
  to?: Note;
}

/** What archiving a note changes in the chain it is part of, planned before anything changes. */
interface RelinkPlan {
  /** The live notes marked superseded by the note archived. */
  predecessors: Note[];
  /** The live note that replaced it (past any archived one), which they are re-linked to. */
  successor?: Note;
}

/** Whether a note's frontmatter text holds `key: uuid` (read line by line: its YAML may not parse). */
function namesIn(note: Note, key: string, uuid: string): boolean {
  const fm = note.raw.slice(note.parsed.yamlStart, note.parsed.yamlEnd);
  return new RegExp(`^${key}[ \\t]*:[ \\t]*['"]?${escapeRegExp(uuid)}['"]?[ \\t]*\\r?$`, 'im').test(fm);
}

/** The live notes whose `key` names `uuid`, in their frontmatter as text (the grep port finds the files). */
function notesNaming(root: string, key: string, uuid: string): Note[] {
  return candidateFiles(root, [`^${key}[ \\t]*:[ \\t]*['"]?${escapeRegExp(uuid)}`], { fixed: false })
    .flatMap((name) => readNoteFile(root, name) ?? [])
    .filter((n) => namesIn(n, key, uuid));
}

function cannotRelink(archived: Note, blocked: Note, why: string): ZkError {
  return new ZkError(
    'refused',
    `cannot archive ${archived.path}: ${blocked.path} ${why}, but its frontmatter is not valid YAML; nothing was changed (${hint('fixFrontmatter', blocked.path, archived.path)})`,
  );
}

/** What archiving `note` re-links; refused, with nothing changed, when a note to re-link cannot be edited. */
function planRelink(root: string, note: Note): RelinkPlan {
  if (!note.uuid) return { predecessors: [] };
  const uuid = note.uuid.toLowerCase();
  const naming = notesNaming(root, 'superseded_by', uuid).filter((n) => n.path !== note.path);
  const unreadable = naming.find((n) => n.parsed.yamlError);
  if (unreadable) throw cannotRelink(note, unreadable, 'is superseded by it and would be re-linked');
  const predecessors = naming.filter((n) => n.superseded_by?.toLowerCase() === uuid);
  if (!predecessors.length) return { predecessors };
  const successor = note.superseded_by ? liveSuccessor(root, note) : undefined;
  if (note.superseded_by && !successor) {
    // A successor whose frontmatter does not parse is not found by its uuid: it is not gone.
    const hidden = notesNaming(root, 'uuid', note.superseded_by).find((n) => n.parsed.yamlError);
    if (hidden) throw cannotRelink(note, hidden, 'replaced it and would list what it replaced');
  }
  return { predecessors, successor };
}

/** The note a predecessor is re-linked to: the successor, unless that is the predecessor itself (a loop). */
function target(p: Note, successor: Note | undefined): Note | undefined {
  return successor && successor.uuid.toLowerCase() !== p.uuid.toLowerCase() ? successor : undefined;
}

// Test seams (crashAt): `archive-after-move` dies once the note is in the archive,
// `archive-after-relink` once its first predecessor is re-linked.

/**
 * Move a note to the archive and re-link the chain it was part of: each predecessor is marked
 * superseded by the live successor (which then lists it under `supersedes`, the archived note's
 * uuid staying there as an archived predecessor), or has its `superseded_by` (and `superseded_at`)
 * removed when nothing live replaces the note. Call under the corpus lock. Steps, in this order: the move, the
 * predecessors, the successor's list; a crash between any two leaves what `tend check` reports
 * and `tend repair` completes (src/tend/supersession.ts).
 */
export async function archiveRelinking(root: string, lock: HeldLock, note: Note): Promise<{ archived: string; relinked: Relink[] }> {
  const plan = planRelink(root, note);
  const archived = archiveNote(root, note.path, undefined, lock);
  trace(root, 'archive', { path: note.path, archived });
  crashAt('archive-after-move');
  const relinked: Relink[] = [];
  for (const p of plan.predecessors) {
    const to = target(p, plan.successor);
    relinked.push({ note: await rewriteKeys(root, lock, p, supersededKeys(to?.uuid)), to });
    trace(root, 'relink', { path: p.path, uuid: p.uuid, from: note.uuid, to: to?.uuid ?? null });
    crashAt('archive-after-relink');
  }
  const listed = relinked.filter((r) => r.to && r.note.uuid).map((r) => r.note.uuid);
  if (plan.successor && listed.length) {
    const fresh = readNoteFile(root, plan.successor.path) ?? plan.successor;
    const supersedes = [...fresh.supersedes];
    for (const u of listed) if (!supersedes.some((s) => s.toLowerCase() === u.toLowerCase())) supersedes.push(u);
    const successor = await rewriteKeys(root, lock, fresh, { supersedes });
    for (const r of relinked) if (r.to) r.to = successor;
  }
  return { archived, relinked };
}
