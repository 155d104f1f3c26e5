import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../../errors.js';
import { archivedMs, heldAt, recordedMs, supersededByAt } from '../note/as-of.js';
import { momentMs } from '../note/moments.js';
import { isoDate } from '../note/slug.js';
import { noteAt } from '../note/note-as-of.js';
import { isPinned, noteMeta, type NoteMeta } from '../note/note-meta.js';
import { noteInfo, readNoteFile, type Note } from '../note/notes.js';
import { listNoteFiles } from '../files/note-files.js';
import { sidecar } from '../files/paths.js';
import { stampOf } from '../files/file-stamp.js';
import { resolveRef } from './refs.js';
import { noteHolding, succession, type ChainNote, type Held } from './supersession.js';

// The memory as it stood at the end of a day or at a moment (docs/format.md#as-of-a-date): the
// notes written by then and not yet archived, archived ones as they stood before their archive,
// each with the `superseded_by` and the text it had then.

/** When an archived note left the memory: its `archived_at`, else when its archived copy was made. */
function archivedAt(h: Held): number | undefined {
  return h.archived ? archivedMs(h.note, h.note.mtimeMs) : undefined;
}

/** A held note's path from the root: an archived one's is under `.archive/`. */
const rootPath = (h: Held) => (h.archived ? `.archive/${h.note.path}` : h.note.path);

/**
 * The note `ref` names, as it stood at `at`: resolved as today, else among archived notes when it
 * names none in the root. Refused (not_found) when the note was not written yet or was archived by then.
 */
export function noteHeldAt(root: string, ref: string, at: number, asOf: string): Held {
  const held = resolveHeld(root, ref);
  const n = held.note;
  const written = recordedMs(n);
  if (written !== undefined && written > at) {
    throw new ZkError('not_found', `${rootPath(held)} did not exist yet on ${asOf}: it dates from ${n.date}`);
  }
  const gone = archivedAt(held);
  if (gone !== undefined && gone <= at) {
    throw new ZkError('not_found', `${rootPath(held)} was archived by ${asOf} (on ${isoDate(new Date(gone))}): it was no longer in the memory then`);
  }
  const successor = n.superseded_by ? noteHolding(root, n.superseded_by)?.note : undefined;
  return { note: { ...noteAt(n, at, successor), path: rootPath(held) }, archived: held.archived };
}

/** The note a ref names in the root, else in the archive; the root's answer (and its suggestions) when neither has it. */
function resolveHeld(root: string, ref: string): Held {
  try {
    return { note: resolveRef(root, ref), archived: false };
  } catch (err) {
    const archive = sidecar(root).archive;
    if (!(err instanceof ZkError) || err.code !== 'not_found' || !fs.statSync(archive, { throwIfNoEntry: false })?.isDirectory()) throw err;
    try {
      return { note: resolveRef(archive, ref), archived: true };
    } catch {
      throw err;
    }
  }
}

/** A note of a chain as it stood at `at`: archived only when it was by then, superseded only when it was by then. */
function chainNoteAt(h: Held, at: number, supersededBy: string | null): ChainNote {
  const gone = archivedAt(h);
  return { ...noteInfo(h.note), path: rootPath(h), superseded_by: supersededBy, archived: gone !== undefined && gone <= at };
}

/**
 * Where a note stood at `at` among the notes that replace one another (see `supersession`): the
 * notes that had replaced it by then, and those it had replaced by then.
 */
export function supersessionAt(root: string, note: Note, at: number): { chain: ChainNote[]; replaces: ChainNote[] } {
  const after = succession(root, note);
  let prev: Note = note;
  let steps = 0;
  while (steps < after.length && supersededByAt(prev, at, after[steps].note) !== null) prev = after[steps++].note;
  const taken = after.slice(0, steps);
  const chain = taken.map((h, i) => chainNoteAt(h, at, i + 1 < steps ? h.note.superseded_by : supersededByAt(h.note, at, after[i + 1]?.note)));
  const replaces = note.supersedes.flatMap((uuid) => {
    const old = noteHolding(root, uuid);
    // Replaced when this note was written, unless its `superseded_at` says later.
    const when = momentMs(old?.note.times.superseded_at);
    return old && (when === undefined || when <= at) ? [chainNoteAt(old, at, old.note.superseded_by)] : [];
  });
  return { chain, replaces };
}

/** The archived notes, one per uuid (of two copies, the one that knows its successor), their paths under `.archive/`. */
function archivedMetas(root: string): NoteMeta[] {
  const dir = sidecar(root).archive;
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  const byUuid = new Map<string, NoteMeta>();
  for (const name of listNoteFiles(dir)) {
    const n = readNoteFile(dir, name);
    const st = n && fs.statSync(path.join(dir, name), { throwIfNoEntry: false });
    if (!n || !st) continue;
    const key = n.uuid.toLowerCase() || `.archive/${name}`;
    const kept = byUuid.get(key);
    if (kept?.superseded_by) continue;
    byUuid.set(key, { ...noteMeta(n, stampOf(st), isPinned(n)), path: `.archive/${name}` });
  }
  return [...byUuid.values()];
}

/**
 * The notes held at `at`, live and archived, each with its `superseded_by` as it stood then, in
 * file-name order. `live` is the corpus's note metadata (src/corpus/note/note-meta.ts): no note of
 * the root is read, only the archive's.
 */
export function notesHeldAt(root: string, live: NoteMeta[], at: number): NoteMeta[] {
  const liveUuids = new Set(live.map((n) => n.uuid.toLowerCase()).filter(Boolean));
  // A note moved back from the archive is live: its archived copy is not another note.
  const archived = archivedMetas(root).filter((n) => !liveUuids.has(n.uuid.toLowerCase()));
  const all = [...live, ...archived];
  const byUuid = new Map(all.filter((n) => n.uuid).map((n) => [n.uuid.toLowerCase(), n]));
  const archivedPaths = new Set(archived.map((n) => n.path));
  const held = all.filter((n) => heldAt(n, at, archivedPaths.has(n.path) ? archivedMs(n, n.mtimeMs) : undefined));
  // A note archived since may have replaced a note then: archiving re-linked or freed what it
  // replaced, but its own `supersedes` still says which notes it stood over while it was held.
  const overBy = new Map<string, string>();
  for (const n of held) if (archivedPaths.has(n.path) && n.uuid) for (const u of n.supersedes) overBy.set(u.toLowerCase(), n.uuid);
  return held
    .map((n) => {
      const then = supersededByAt(n, at, n.superseded_by ? byUuid.get(n.superseded_by.toLowerCase()) : undefined);
      return { ...n, superseded_by: then ?? overBy.get(n.uuid.toLowerCase()) ?? null };
    })
    .sort((a, b) => byName(a.slug, b.slug) || byName(a.path, b.path));
}

/** File-name order, as the root lists its notes. */
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
