import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FileStamp } from '../corpus/files/file-stamp.js';
import { sha256 } from '../corpus/files/files.js';
import { fileIdentity, readIndexRecord, writeIndexRecord } from './index-record.js';
import { indexDir } from './lance.js';

// What the full-text index knows of the corpus, and its files in the index folder: `manifest.json`,
// one compact row per note (src/search/changes.ts compares the notes on disk with it), and
// `manifest.log`, the refreshes since it was written, a JSON line each. A refresh appends its line
// instead of rewriting every row (5 MB of JSON at 50,000 notes); once the log has grown past
// LOG_LIMIT_BYTES the next refresh writes the whole manifest again and starts a new log. A line
// belongs to the manifest of its `gen`: a log left by an older manifest is ignored, and so is
// everything from a line cut short (a crash mid-append) on. The table's own changes are keyed by
// path, so a manifest that lacks a refresh is only older: the next refresh finds those notes again.

/** What the index knows of one note file, to tell cheaply whether it changed. */
export interface FileState extends FileStamp {
  /** The first 16 hex digits of the content's sha256: enough to tell a real change from a touch. */
  hash: string;
  /** Stated too soon after a change for its stamp to vouch for its content: read again next time. */
  unsure: boolean;
}

/** What the index knows of the corpus (on disk as compact rows, it is read before every query). */
export interface Manifest {
  /** Which written manifest this is: the lines of the log that belong to it say so. */
  gen: string;
  files: Map<string, FileState>;
  refreshes: number;
  builtAt: string;
  refreshedAt: string;
}

/** A manifest with the identity of the file it was read from or written as. */
export type KnownManifest = Manifest & { id: string };

const MANIFEST_VERSION = 4;
/** How large the log may grow before a refresh writes the whole manifest again. */
const LOG_LIMIT_BYTES = 2 * 1024 * 1024;

/** name, mtime, size, hash, ctime, inode, unsure (1) or not (0). */
type Row = [string, number, number, string, number, number, number];

interface ManifestFile {
  version: number;
  gen: string;
  files: Row[];
  refreshes: number;
  builtAt: string;
  refreshedAt: string;
}

/** One refresh, as a line of the log. */
interface LogLine {
  gen: string;
  set: Row[];
  del: string[];
  refreshes: number;
  refreshedAt: string;
}

/** What one refresh changed in the manifest: rows set (added or changed) and rows removed. */
export interface ManifestChange {
  set: Iterable<string>;
  del: Iterable<string>;
}

const rowOf = (name: string, f: FileState): Row => [name, f.mtimeMs, f.size, f.hash, f.ctimeMs, f.ino, f.unsure ? 1 : 0];
const stateOf = ([, mtimeMs, size, hash, ctimeMs, ino, unsure]: Row): FileState => ({ mtimeMs, size, hash, ctimeMs, ino, unsure: unsure !== 0 });
const validRow = (r: unknown): r is Row => Array.isArray(r) && r.length === 7 && typeof r[0] === 'string' && typeof r[3] === 'string';

/** The first 16 hex digits of the content's sha256 (see FileState.hash). */
export const contentHash = (buf: Buffer) => sha256(buf).slice(0, 16);

export function manifestPath(root: string): string {
  return path.join(indexDir(root), 'manifest.json');
}

export function manifestLogPath(root: string): string {
  return path.join(indexDir(root), 'manifest.log');
}

function logSize(root: string): number {
  return fs.statSync(manifestLogPath(root), { throwIfNoEntry: false })?.size ?? 0;
}

/**
 * The manifest's identity: the written manifest's and how far its log has grown. Marks that name
 * another describe an older manifest and are not trusted.
 */
export function manifestId(root: string): string | undefined {
  const id = fileIdentity(manifestPath(root));
  return id && `${id}+${logSize(root)}`;
}

/** The manifest with its log applied, and its identity as read (see `manifestId`). */
export function readManifest(root: string): KnownManifest | undefined {
  const read = readIndexRecord<ManifestFile>(manifestPath(root), MANIFEST_VERSION);
  if (!read || !Array.isArray(read.record.files) || typeof read.record.gen !== 'string') return undefined;
  const { gen, refreshes, builtAt, refreshedAt } = read.record;
  const m: Manifest = { gen, refreshes, builtAt, refreshedAt, files: new Map(read.record.files.map((r) => [r[0], stateOf(r)])) };
  const log = readLog(root);
  for (const line of log.lines) {
    if (line.gen !== m.gen) break;
    for (const name of line.del) m.files.delete(name);
    for (const r of line.set) m.files.set(r[0], stateOf(r));
    m.refreshes = line.refreshes;
    m.refreshedAt = line.refreshedAt;
  }
  return { ...m, id: `${read.id}+${log.size}` };
}

/** The log's whole lines up to the first that is cut short or damaged, and the size it had. */
function readLog(root: string): { lines: LogLine[]; size: number } {
  let text: string;
  try {
    text = fs.readFileSync(manifestLogPath(root), 'utf8');
  } catch {
    return { lines: [], size: 0 };
  }
  const lines: LogLine[] = [];
  for (let at = 0, nl = text.indexOf('\n'); nl >= 0; at = nl + 1, nl = text.indexOf('\n', at)) {
    let line: LogLine;
    try {
      line = JSON.parse(text.slice(at, nl)) as LogLine;
    } catch {
      break;
    }
    if (typeof line?.gen !== 'string' || !Array.isArray(line.set) || !line.set.every(validRow) || !Array.isArray(line.del)) break;
    lines.push(line);
  }
  return { lines, size: Buffer.byteLength(text) };
}

/** Write the whole manifest (under the index lock) as a new `gen`, with a new log; returns its identity. */
export function writeManifest(root: string, m: Manifest): string | undefined {
  m.gen = crypto.randomUUID();
  const out: ManifestFile = {
    version: MANIFEST_VERSION, gen: m.gen, refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt,
    files: [...m.files].map(([name, f]) => rowOf(name, f)),
  };
  const id = writeIndexRecord(manifestPath(root), out);
  // The old log's lines name the old gen: a reader between these two steps ignores them.
  fs.rmSync(manifestLogPath(root), { force: true });
  return id && `${id}+0`;
}

/**
 * Record one refresh of `m` (already applied to it, under the index lock): a line appended to the
 * log, or the whole manifest written again when the log is full or ends in a line cut short.
 */
export function recordRefresh(root: string, m: Manifest, change: ManifestChange): string | undefined {
  const size = logSize(root);
  const file = manifestLogPath(root);
  if (size > LOG_LIMIT_BYTES || (size > 0 && !endsWithNewline(file, size))) return writeManifest(root, m);
  const line: LogLine = {
    gen: m.gen, refreshes: m.refreshes, refreshedAt: m.refreshedAt, del: [...change.del],
    set: [...change.set].flatMap((name) => {
      const f = m.files.get(name);
      return f ? [rowOf(name, f)] : [];
    }),
  };
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
  const id = fileIdentity(manifestPath(root));
  return id && `${id}+${logSize(root)}`;
}

function endsWithNewline(file: string, size: number): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const last = Buffer.alloc(1);
    fs.readSync(fd, last, 0, 1, size - 1);
    return last[0] === 10;
  } finally {
    fs.closeSync(fd);
  }
}
