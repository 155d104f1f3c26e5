import fs from 'node:fs';
import { createFileExclusive, replaceFile, sha256 } from '../files/files.js';
import { sidecar } from '../files/paths.js';
import type { FileChange } from './rewrite.js';
import { loadDerived, type DerivedKind } from '../note/stat-cache.js';

/** What the last gardener pass did, for `status`. */
export interface GardenerPass {
  started: string;
  finished: string;
  host: string;
  summary: Record<string, number>;
}

/** Per note, the content hashes the gardener last tended and last judged for a split. */
interface Entry {
  tended?: string;
  split?: string;
}

interface TendingFile {
  version: 1;
  last_pass: GardenerPass | null;
  notes: Record<string, Entry>;
}

type Field = keyof Entry;

function readFile(root: string): TendingFile {
  try {
    const data = JSON.parse(fs.readFileSync(sidecar(root).tended, 'utf8')) as TendingFile;
    if (data && typeof data.notes === 'object' && data.notes) return data;
  } catch {
    // missing or damaged: every note is simply tended again
  }
  return { version: 1, last_pass: null, notes: {} };
}

/**
 * The record as written: its first line holds the version and the last pass, so that `status`
 * can read that line alone instead of every note's hashes (megabytes in a large corpus).
 */
function serialize(data: TendingFile): string {
  return `{"version":${data.version},"last_pass":${JSON.stringify(data.last_pass)},\n"notes":${JSON.stringify(data.notes)}}\n`;
}

/** Enough of the record's start for its first line: a pass is a few hundred bytes. */
const HEAD_BYTES = 64 * 1024;

/** The last gardener pass recorded in `.zk/tended.json`, if any. */
export function lastGardenerPass(root: string): GardenerPass | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(sidecar(root).tended, 'r');
    const buf = Buffer.alloc(HEAD_BYTES);
    const head = buf.toString('utf8', 0, fs.readSync(fd, buf, 0, HEAD_BYTES, 0));
    const line = head.slice(0, Math.max(0, head.indexOf('\n')));
    const first = line.endsWith(',') ? (JSON.parse(`${line.slice(0, -1)}}`) as Partial<TendingFile>) : {};
    if ('last_pass' in first) return first.last_pass ?? null;
  } catch {
    // missing, or not the first line `serialize` writes: read the whole record below
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  // A record written on one line (an older one, or by hand).
  return readFile(root).last_pass ?? null;
}

/**
 * The gardener's memory of what it has already looked at (`.zk/tended.json`): a note whose hash is
 * unchanged since then costs no LLM call. Only the gardener's own edits move a recorded hash
 * forward, so a change someone else made always brings the note back.
 */
export class GardenerRecord {
  private constructor(
    private readonly root: string,
    private readonly data: TendingFile,
  ) {}

  static load(root: string): GardenerRecord {
    return new GardenerRecord(root, readFile(root));
  }

  private is(field: Field, name: string, raw: string): boolean {
    return this.data.notes[name]?.[field] === sha256(raw);
  }

  private set(field: Field, name: string, raw: string): void {
    this.data.notes[name] = { ...this.data.notes[name], [field]: sha256(raw) };
  }

  isTended(name: string, raw: string): boolean {
    return this.is('tended', name, raw);
  }

  /** Whether the text with this sha256 is the one last tended. */
  isTendedHash(name: string, hash: string): boolean {
    return this.data.notes[name]?.tended === hash;
  }

  isSplitJudged(name: string, raw: string): boolean {
    return this.is('split', name, raw);
  }

  markTended(name: string, raw: string): void {
    this.set('tended', name, raw);
  }

  markSplitJudged(name: string, raw: string): void {
    this.set('split', name, raw);
  }

  /** A note the gardener wrote itself: nothing left to tend or split in it. */
  markWritten(name: string, raw: string): void {
    this.data.notes[name] = { tended: sha256(raw), split: sha256(raw) };
  }

  /** The gardener changed a note: what was recorded for the text it found is carried to the new text. */
  ownEdit(change: FileChange): void {
    const entry = this.data.notes[change.path];
    if (!entry) return;
    const before = sha256(change.before);
    const after = sha256(change.after);
    for (const field of ['tended', 'split'] as const) if (entry[field] === before) entry[field] = after;
  }

  forget(name: string): void {
    delete this.data.notes[name];
  }

  /** Write the record atomically, dropping notes that no longer exist. */
  save(pass: GardenerPass, existing: Iterable<string>): void {
    const keep = new Set(existing);
    for (const name of Object.keys(this.data.notes)) if (!keep.has(name)) delete this.data.notes[name];
    this.data.last_pass = pass;
    const file = sidecar(this.root).tended;
    const text = serialize(this.data);
    if (!createFileExclusive(this.root, file, text)) replaceFile(this.root, file, text);
  }
}

/** A note file as the gardener orders and recognises it, without reading it. */
export interface NoteState {
  path: string;
  mtimeMs: number;
  /** The sha256 of its text, as the gardener's record keeps it. */
  hash: string;
}

const STATES: DerivedKind<NoteState> = {
  file: 'notes-hash.jsonl',
  version: 1,
  derive: (n) => ({ path: n.path, mtimeMs: n.mtimeMs, hash: sha256(n.raw) }),
  encode: (s) => s.hash,
  // A damaged hash only fails to match the record, so the note is read: its length is check enough.
  decode: (kept, name, seen) => (typeof kept === 'string' && kept.length === 64 ? { path: name, mtimeMs: seen.mtimeMs, hash: kept } : undefined),
};

/** Every readable note's name, mtime and content hash: only notes that changed are read (see `loadDerived`). */
export function loadNoteStates(root: string): NoteState[] {
  return loadDerived(root, STATES);
}
