import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../errors.js';
import { archiveNote } from './archive.js';
import { appendFragment } from './append.js';
import { createFileExclusive, createNoteFile } from './files.js';
import { decisionBody, isKind, KINDS, mergeFragment, renderNote, type DecisionParts, type Kind } from './format.js';
import { isNoteLink, parseLinks } from './links.js';
import { ensureSidecar, withCorpusLock, type HeldLock } from './lock.js';
import { listNoteFiles, loadNotes, noteInfo, readNoteFile, type Note, type NoteInfo } from './notes.js';
import { relToRoot } from './paths.js';
import { resolveRef, successors } from './refs.js';
import { DATED_STEM, isoDate, parseDateOption, requireSlug, stemFor } from './slug.js';
import { defaultSource } from './source.js';
import { trace } from './trace.js';

export { defaultSource };

/** The largest body or fragment accepted (ZK_MEMORY_MAX_BODY bytes; default 5 MiB). */
export function maxBodyBytes(): number {
  const v = Number(process.env.ZK_MEMORY_MAX_BODY);
  return Number.isFinite(v) && v > 0 ? v : 5 * 1024 * 1024;
}

function checkSize(what: string, text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBodyBytes()) {
    throw new ZkError('usage', `${what} too large: ${bytes} bytes (limit ${maxBodyBytes()}; set ZK_MEMORY_MAX_BODY to change it)`);
  }
  if (text.includes('\0')) throw new ZkError('usage', `${what} contains a NUL byte: binary input is not a note`);
}

export function checkKind(kind: string | undefined): Kind | undefined {
  if (kind === undefined || kind === '') return undefined;
  if (!isKind(kind)) throw new ZkError('usage', `unknown kind: ${JSON.stringify(kind)} (one of ${KINDS.join(', ')})`);
  return kind;
}

export interface WriteOptions extends DecisionParts {
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

/**
 * Create a note: exclusive, atomic, refused when the name exists unless `unique`. With `lock` (the
 * caller holds the corpus lock), the lock is checked to be still ours just before the note appears.
 */
export function writeNote(root: string, o: WriteOptions, lock?: HeldLock): Note {
  const title = (o.title ?? '').replace(/\s+/g, ' ').trim();
  if (!title) throw new ZkError('usage', 'empty title: a note needs a title');
  const kind = checkKind(o.kind);
  const date = o.date ? parseDateOption(o.date) : isoDate(new Date());
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
  const text = renderNote({ uuid, title, date, author, kind, supersedes: o.supersedes, extra: o.extra }, body);
  const name = createNoteFile(root, stemFor(date, slug), text, Boolean(o.unique), lock);
  trace(root, 'write', { path: name, uuid, kind: kind ?? null, source: author ?? null });
  const note = readNoteFile(root, name);
  if (!note) throw new ZkError('io', `note ${name} vanished right after it was written`);
  return note;
}

export interface MergeOptions {
  source?: string;
  date?: string;
}

/** Append a dated fragment to a note under the corpus lock: all of it or nothing (see appendFragment). */
export async function mergeNote(root: string, ref: string, fragment: string, o: MergeOptions = {}): Promise<Note> {
  const text = (fragment ?? '').trim();
  if (!text) throw new ZkError('usage', 'empty fragment: nothing to merge');
  checkSize('fragment', text);
  const date = o.date ? parseDateOption(o.date) : isoDate(new Date());
  const source = defaultSource(o.source);
  return withCorpusLock(root, (lock) => {
    const note = resolveRef(root, ref);
    appendFragment(root, lock, note.path, mergeFragment(date, text, source));
    trace(root, 'merge', { path: note.path, uuid: note.uuid, source: source ?? null, bytes: Buffer.byteLength(text) });
    return readNoteFile(root, note.path) ?? note;
  });
}

export interface ResolvedLink {
  label: string;
  target: string;
  uuid: string | null;
  resolved: boolean;
  title: string | null;
  line: number;
}

export interface ReadResult {
  note: Note;
  links: ResolvedLink[];
  /** The notes that replaced this one, oldest first (the last is the current belief). */
  chain: NoteInfo[];
}

/** A note with its links resolved to the titles of their targets. */
export function readNote(root: string, ref: string): ReadResult {
  const note = resolveRef(root, ref);
  const names = new Set(listNoteFiles(root));
  const links = noteLinks(note)
    .map((l) => {
      const target = names.has(l.target) ? readNoteFile(root, l.target) : undefined;
      return {
        label: l.label, target: l.target, uuid: l.uuid ?? null,
        resolved: Boolean(target), title: target?.title ?? null, line: l.line,
      };
    });
  const chain = note.superseded_by ? successors(root, note).map(noteInfo) : [];
  return { note, links, chain };
}

/** The links of a note's body (not its frontmatter), with line numbers of the file. */
export function noteLinks(note: Note) {
  return parseLinks(note.raw).filter((l) => l.start >= note.parsed.bodyOffset && isNoteLink(l));
}

export interface ListOptions {
  kind?: string;
  recent?: number;
  history?: boolean;
}

/** Notes in file-name order; `recent` keeps the N most recently modified (newest first). */
export function listNotes(root: string, o: ListOptions = {}): Note[] {
  const kind = checkKind(o.kind);
  let notes = loadNotes(root).filter((n) => (o.history || !n.superseded_by) && (!kind || n.kind === kind));
  if (o.recent !== undefined) {
    notes = notes.sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path)).slice(0, o.recent);
  }
  return notes;
}

const GITIGNORE = ['# derived or host-local state; notes, .archive/ and trace.jsonl are versioned', 'index/', 'lock', 'lock.*', 'lease', 'inbox/', 'intents/', 'tmp/', 'tended.json', ''].join('\n');

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

/** Create a corpus (or make sure an existing one is complete). Idempotent. */
export function initCorpus(dir: string): { root: string; created: boolean } {
  const root = path.resolve(dir);
  const zk = path.join(root, '.zk');
  makeFolder(root);
  const created = !fs.existsSync(zk);
  makeFolder(zk, root);
  const gi = path.join(zk, '.gitignore');
  // Exclusive and without following a planted symlink: an existing file or link is left alone.
  if (!fs.lstatSync(gi, { throwIfNoEntry: false })) createFileExclusive(root, gi, GITIGNORE);
  if (created) trace(root, 'init', { root: '.' });
  return { root, created };
}

/** Retire a note to `.archive/` under the lock (see archiveNote). */
export async function retireNote(root: string, ref: string): Promise<string> {
  return withCorpusLock(root, (lock) => {
    const note = resolveRef(root, ref);
    const dest = archiveNote(root, note.path, undefined, lock);
    trace(root, 'archive', { path: note.path, archived: dest });
    return dest;
  });
}

export { relToRoot };
