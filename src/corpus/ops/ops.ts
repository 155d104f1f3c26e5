import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { settings, now } from '../../context.js';
import { ZkError } from '../../errors.js';
import { archiveRelinking, type Relink } from './relink.js';
import { notesHeldAt } from '../graph/held-at.js';
import { appendFragment } from '../lock/append.js';
import { rewriteKeys } from './keys.js';
import { createFileExclusiveAsync, createNoteFile, refusedSymlink } from '../files/files.js';
import { hasControlChar, isNoteName } from '../files/note-files.js';
import { relToRoot, sidecar } from '../files/paths.js';
import { decisionBody, mergeFragment, parseNoteText, renderNote, type DecisionParts } from '../note/format.js';
import { withCorpusLock } from '../lock/lock.js';
import type { HeldLock } from '../files/held-lock.js';
import { loadNoteMetas, type NoteMeta } from '../note/note-meta.js';
import { readNoteFile, type Note } from '../note/notes.js';
import { ensureSidecar } from '../files/sidecar.js';
import { notesWithSlug, resolveRef, successors } from '../graph/refs.js';
import { DATED_STEM, isoDate, parseDateOption, requireSlug, stemFor } from '../note/slug.js';
import { momentText, timeAsked } from '../note/moments.js';
import { checkedValidity, type ValidityOptions } from './validity.js';
import { defaultSource } from '../note/source.js';
import { trace } from '../trace/trace.js';
import { warn } from '../warn.js';

import { checkKind } from '../note/kinds.js';
import { hint } from '../../hints.js';



/** The largest body or fragment accepted (ZK_MEMORY_MAX_BODY bytes; default 5 MiB). */
export function maxBodyBytes(): number {
  return settings().maxBodyBytes();
}

function checkSize(what: string, text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBodyBytes()) {
    throw new ZkError('usage', `${what} too large: ${bytes} bytes (limit ${maxBodyBytes()}; set ZK_MEMORY_MAX_BODY to change it)`);
  }
  if (text.includes('\0')) throw new ZkError('usage', `${what} contains a NUL byte: binary input is not a note`);
}


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
  // Every note's name as a resident process keeps it (its watcher synced before the call), else as the name index knows it, else as listed now.
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

/** Where `createNoteAs` puts a note: among the notes, or in `.archive/`. */
export interface CreateAsOptions {
  archived?: boolean;
}

/** `.archive/`, made when missing; a symlink planted there is refused, never written through. */
function archiveFolder(root: string): string {
  const dir = sidecar(root).archive;
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (st?.isSymbolicLink()) throw refusedSymlink(dir);
  if (!st) fs.mkdirSync(dir);
  else if (!st.isDirectory()) throw new ZkError('io', `.archive is not a folder: remove it and run again`);
  return dir;
}

/**
 * Create a note under an exact file name with exact text: exclusive and atomic, refused (`exists`)
 * when the name is taken. For a note that must come back as it was (an export read in again) or
 * be named before it exists (a note that others being imported link to). Several may be created
 * at once (their writes share the disk's flushes). Returns the path relative to the root.
 */
export async function createNoteAs(root: string, name: string, text: string, o: CreateAsOptions = {}): Promise<string> {
  if (!isNoteName(name) || name === '.md' || /[\\/]/.test(name) || hasControlChar(name) || Buffer.byteLength(name, 'utf8') > 255) {
    throw new ZkError('usage', `not a note file name: ${JSON.stringify(name)}`);
  }
  checkSize('note', text);
  ensureSidecar(root);
  const file = path.join(o.archived ? archiveFolder(root) : root, name);
  const rel = relToRoot(root, file);
  if (!(await createFileExclusiveAsync(file, text))) throw new ZkError('exists', `note already exists: ${rel}`);
  const fm = parseNoteText(text).frontmatter;
  trace(root, 'write', { path: rel, uuid: typeof fm.uuid === 'string' ? fm.uuid : null, kind: typeof fm.kind === 'string' ? fm.kind : null, source: typeof fm.author === 'string' ? fm.author : null });
  return rel;
}

export interface MergeOptions {
  source?: string;
  date?: string;
  /**
   * Where the fragment comes from (the document `ingest accept --merge` read it in): listed, with
   * the fragment's date, under FRAGMENT_SOURCES in the note's frontmatter.
   */
  origin?: Record<string, string | undefined>;
}

/** The frontmatter list of where a note's merged fragments come from (docs/format.md#merge-fragments). */
export const FRAGMENT_SOURCES = 'fragment_sources';

/** The note's list of fragment sources with one more entry (a value set by hand that is no list is kept as its first entry). */
function withSource(note: Note, entry: Record<string, string>): unknown[] {
  const listed = note.parsed.frontmatter[FRAGMENT_SOURCES];
  return [...(Array.isArray(listed) ? listed : listed === undefined || listed === null ? [] : [listed]), entry];
}

/**
 * Append a dated fragment to a note under the corpus lock: all of it or nothing. With an origin,
 * the fragment and its entry in the frontmatter land in one replacement of the file; otherwise the
 * fragment is appended (see appendFragment).
 */
export async function mergeNote(root: string, ref: string, fragment: string, o: MergeOptions = {}): Promise<Note> {
  const text = (fragment ?? '').trim();
  if (!text) throw new ZkError('usage', 'empty fragment: nothing to merge');
  checkSize('fragment', text);
  // A fragment records the moment it was merged (an `--as-of` answer tells fragments of one day apart); a given date, that day.
  const date = o.date ? parseDateOption(o.date) : momentText(now());
  const source = defaultSource(o.source);
  const origin = o.origin && Object.fromEntries(Object.entries({ date, ...o.origin }).filter((e): e is [string, string] => e[1] !== undefined));
  return withCorpusLock(root, async (lock) => {
    const note = resolveRef(root, ref);
    // Allowed (history may be annotated), but said: the fragment does not reach the current note.
    if (note.superseded_by) warn(`${note.path} is superseded (by ${note.superseded_by}): the fragment went to this older note`);
    const appended = mergeFragment(date, text, source, note.parsed.eol);
    if (origin && !note.parsed.yamlError) {
      await rewriteKeys(root, lock, note, (n) => ({ [FRAGMENT_SOURCES]: withSource(n, origin) }), { append: appended });
    } else {
      if (origin) warn(`${note.path} has frontmatter that is not valid YAML: where the fragment comes from is kept in the trace only`);
      appendFragment(root, lock, note.path, appended);
    }
    trace(root, 'merge', { path: note.path, uuid: note.uuid, source: source ?? null, bytes: Buffer.byteLength(text), ...(origin ? { origin } : {}) });
    return readNoteFile(root, note.path) ?? note;
  });
}

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

/**
 * Make `dir` and its missing parents one level at a time, so a target that cannot be a folder
 * (under /proc, below a file) fails at once with a sentence saying why.
 */
function makeFolder(dir: string, target = dir): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir);
  } catch {
    st = undefined; // missing, or below something that is not a folder: the parent says which
  }
  if (st) {
    if (!st.isDirectory()) throw new ZkError('io', `cannot create a corpus at ${target}: ${dir} is a file, not a folder`);
    return;
  }
  const parent = path.dirname(dir);
  if (parent !== dir) makeFolder(parent, target);
  try {
    fs.mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
    const why = code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'permission denied' : code === 'ENOENT' ? 'the parent folder does not accept new folders' : code ?? 'error';
    throw new ZkError('io', `cannot create the folder ${dir}: ${why}`);
  }
}

/** Create a corpus (or make sure an existing one is complete: its .gitignore brought up to date). Idempotent. */
export function initCorpus(dir: string): { root: string; created: boolean } {
  const root = path.resolve(dir);
  makeFolder(root);
  const created = ensureSidecar(root);
  if (created) trace(root, 'init', { root: '.' });
  return { root, created };
}

/**
 * Retire a note to `.archive/` under the lock (see archiveNote), re-linking the chain it was part
 * of (see archiveRelinking).
 */
export async function retireNote(root: string, ref: string): Promise<{ archived: string; relinked: Relink[] }> {
  return withCorpusLock(root, (lock) => archiveRelinking(root, lock, resolveRef(root, ref)));
}
