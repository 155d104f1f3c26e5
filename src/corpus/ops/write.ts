import crypto from 'node:crypto';
import { now } from '../../context.js';
import { ZkError } from '../../errors.js';
import { createNoteFile } from '../files/files.js';
import { decisionBody, renderNote, type DecisionParts } from '../note/format.js';
import type { HeldLock } from '../files/held-lock.js';
import { readNoteFile, type Note } from '../note/notes.js';
import { ensureSidecar } from '../files/sidecar.js';
import { notesWithSlug, successors } from '../graph/refs.js';
import { DATED_STEM, isoDate, parseDateOption, requireSlug, stemFor } from '../note/slug.js';
import { checkedValidity, type ValidityOptions } from './validity.js';
import { defaultSource } from '../note/source.js';
import { trace } from '../trace/trace.js';
import { checkKind } from '../note/kinds.js';
import { hint } from '../../hints.js';
import { checkSize } from './limits.js';

export interface WriteOptions extends DecisionParts, ValidityOptions {
  slug: string;
  title: string;
  body?: string;
  kind?: string;
  source?: string;
  date?: string;
  unique?: boolean;
  supersedes?: string[];
  /** Extra frontmatter keys (provenance) written after the standard ones. */
  extra?: Record<string, unknown>;
}

function slugTaken(slug: string, holders: string[]): ZkError {
  return new ZkError('exists', `a note named ${JSON.stringify(slug)} exists already: ${holders.join(', ')} (${hint('slugTaken', slug)})`);
}

/**
 * The undated slug a new note gets. A slug names one subject on every date (`merge judy` must not
 * turn ambiguous tomorrow), so a slug in use is refused, unless the new note supersedes the note
 * that holds it; with `unique` the first free `slug-2`, `slug-3`, … is taken instead.
 */
function freeSlug(root: string, slug: string, o: WriteOptions): string {
  const replaced = new Set((o.supersedes ?? []).map((u) => u.toLowerCase()));
  // A holder already replaced by a note this one replaces in turn (`judy` by `judy-2`, when the new
  // note supersedes `judy-2`) hands its slug on down the chain too.
  const handsOn = (n: Note | undefined) =>
    Boolean(n) && (replaced.has(n!.uuid.toLowerCase()) || (Boolean(n!.superseded_by) && successors(root, n!).some((s) => replaced.has(s.uuid.toLowerCase()))));
  // Every note's name as a resident process keeps it (its watcher caught up before the call), else as the name index knows it, else as listed now.
  const taken = (s: string) => notesWithSlug(root, s, { writer: true }).filter((f) => !handsOn(readNoteFile(root, f)));
  const holders = taken(slug);
  if (!holders.length) return slug;
  if (!o.unique) throw slugTaken(slug, holders);
  for (let n = 2; ; n++) if (!taken(`${slug}-${n}`).length) return `${slug}-${n}`;
}

/**
 * Create a note: exclusive, atomic, refused when the name (or its undated slug) is taken unless
 * `unique`. With `lock` (the caller holds the corpus lock), the lock is checked to be still ours
 * just before the note appears.
 */
export function writeNote(root: string, o: WriteOptions, lock?: HeldLock): Note {
  const title = (o.title ?? '').replace(/\s+/g, ' ').trim();
  if (!title) throw new ZkError('usage', 'empty title: a note needs a title');
  const kind = checkKind(o.kind);
  const date = o.date ? parseDateOption(o.date) : isoDate(new Date(now()));
  const validity = checkedValidity(o);
  let slug = requireSlug(o.slug);
  const dated = DATED_STEM.exec(slug);
  if (dated && dated[4]) slug = dated[4]; // a stem was given: never double the date
  const content = o.body ?? '';
  checkSize('body', content);
  const body = kind === 'decision' && (o.choice || o.rationale || o.alternatives?.length) ? decisionBody(content, o) : content;
  const author = defaultSource(o.source);
  // A `.zk` that cannot hold the tool's files (a plain file there) fails the write before it starts.
  ensureSidecar(root);
  const uuid = crypto.randomUUID();
  const text = renderNote({ uuid, title, date, author, kind, supersedes: o.supersedes, ...validity, extra: o.extra }, body);
  const free = freeSlug(root, slug, o);
  // A note replacing the one that holds its slug takes the next free name on the same date (`-2`).
  const replacing = Boolean(o.supersedes?.length) && notesWithSlug(root, free, { writer: true }).length > 0;
  let name: string;
  try {
    name = createNoteFile(root, stemFor(date, free), text, Boolean(o.unique) || replacing, lock);
  } catch (err) {
    // Another writer took the name between the check and the create: the same refusal.
    if (err instanceof ZkError && err.code === 'exists') throw slugTaken(free, [`${stemFor(date, free)}.md`]);
    throw err;
  }
  trace(root, 'write', { path: name, uuid, kind: kind ?? null, source: author ?? null });
  const note = readNoteFile(root, name);
  if (!note) throw new ZkError('io', `note ${name} vanished right after it was written`);
  return note;
}
