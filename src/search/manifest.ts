import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../corpus/files/files.js';
import { FileStates, type FileState } from './file-states.js';
import { sharedNames } from '../corpus/files/shared-names.js';
import { fileIdentity, identityOf, readIndexRecord, writeIndexRecord } from './index-record.js';
import { indexDir } from './lance.js';

// What the full-text index knows of the corpus, and its files in the index folder:
// `manifest.json`, one compact row per note (src/search/changes.ts compares the notes on disk with
// it), and `manifest.log`, a line per refresh since with the rows it changed. At 50,000 notes the
// rows are 5 MB: a refresh appends a line, and the whole is written again only once the log
// outgrows an eighth of it.

/** What the index knows of the corpus (on disk as compact rows, it is read before every query). */
export interface Manifest {
  files: FileStates;
  refreshes: number;
  builtAt: string;
  refreshedAt: string;
}

/** A manifest with the identity of the file it was read from or written as. */
export type KnownManifest = Manifest & { id: string };

export type { FileState } from './file-states.js';

const MANIFEST_VERSION = 3;

interface ManifestFile {
  version: number;
  /** name, mtime, size, hash, ctime, inode, unsure (1) or not (0). */
  files: [string, number, number, string, number, number, number][];
  refreshes: number;
  builtAt: string;
  refreshedAt: string;
}

/** The first 16 hex digits of the content's sha256 (see FileState.hash). */
export const contentHash = (buf: Buffer) => sha256(buf).slice(0, 16);

export function manifestPath(root: string): string {
  return path.join(indexDir(root), 'manifest.json');
}

export function manifestLogPath(root: string): string {
  return path.join(indexDir(root), 'manifest.log');
}

/** Which manifest there is: its file's identity and its log's, together ('-' for no log). */
const combined = (base: string, log: string | undefined) => `${base}+${log ?? '-'}`;

/** The manifest's identity: marks that name another describe an older manifest and are not trusted. */
export function manifestId(root: string): string | undefined {
  const base = fileIdentity(manifestPath(root));
  return base === undefined ? undefined : combined(base, fileIdentity(manifestLogPath(root)));
}

/**
 * One refresh's change as the log keeps it, for the manifest file of identity `base`: a line left
 * from before the file was written again names another, and is passed over.
 */
interface LogLine {
  base: string;
  refreshes: number;
  refreshedAt: string;
  set: ManifestRow[];
  del: string[];
}

const stateOf = ([, mtimeMs, size, hash, ctimeMs, ino, unsure]: ManifestRow): FileState => ({ mtimeMs, size, hash, ctimeMs, ino, unsure: unsure !== 0 });

/**
 * The log's whole lines and its identity. A line cut short (a refresh that died writing it) ends
 * what is read: the notes it named differ from the manifest and are indexed again.
 */
function readLog(root: string): { lines: LogLine[]; id: string } | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(manifestLogPath(root), 'r');
    const id = identityOf(fs.fstatSync(fd));
    const text = fs.readFileSync(fd, 'utf8');
    const lines: LogLine[] = [];
    for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
      if (!line) continue;
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        break;
      }
    }
    return { lines, id };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The manifest and the identity of the very files it was read from. */
export function readManifest(root: string): KnownManifest | undefined {
  const read = readIndexRecord<ManifestFile>(manifestPath(root), MANIFEST_VERSION);
  if (!read || !Array.isArray(read.record.files)) return undefined;
  const m = read.record;
  const files = new FileStates();
  // The names a resident process lists hold the same strings as the manifest's (see `sharedNames`).
  const names = sharedNames(
    root,
    m.files.map((row) => row[0]),
  );
  m.files.forEach((row, i) => files.set(names[i], stateOf(row)));
  const manifest: Manifest = { files, refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt };
  const log = readLog(root);
  for (const line of log?.lines ?? []) {
    if (line?.base !== read.id || !Array.isArray(line.set) || !Array.isArray(line.del)) continue;
    for (const row of line.set) files.set(row[0], stateOf(row));
    for (const name of line.del) files.delete(name);
    manifest.refreshes = line.refreshes;
    manifest.refreshedAt = line.refreshedAt;
  }
  return { ...manifest, id: combined(read.id, log?.id) };
}

type ManifestRow = ManifestFile['files'][number];
const rowOf = (name: string, f: FileState): ManifestRow => [name, f.mtimeMs, f.size, f.hash, f.ctimeMs, f.ino, f.unsure ? 1 : 0];

/**
 * Write the manifest whole (under the index lock), its log emptied; returns its identity. A log
 * left by a crash in between names the old file: its lines are passed over.
 */
export function writeManifest(root: string, m: Manifest): string | undefined {
  const out: ManifestFile = {
    version: MANIFEST_VERSION,
    refreshes: m.refreshes,
    builtAt: m.builtAt,
    refreshedAt: m.refreshedAt,
    // In name order, as the notes are listed: a resident process reading it shares their names (see `readManifest`).
    files: [...m.files].map(([name, f]) => rowOf(name, f)).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
  };
  const base = writeIndexRecord(manifestPath(root), out);
  fs.rmSync(manifestLogPath(root), { force: true });
  return base === undefined ? undefined : combined(base, undefined);
}

/** What one refresh changed in a manifest: the states it set and the notes it dropped. */
export interface ManifestChange {
  set: Iterable<string>;
  del: readonly string[];
}

/**
 * Record a refresh's change to `m` (already applied to it), read or written as `m.id` (under the
 * index lock): a line appended to the log when the files on disk are still that manifest and the
 * log stays small, else the whole manifest written again. Returns the identity it leaves.
 */
export function recordManifestChange(root: string, m: KnownManifest, change: ManifestChange): string | undefined {
  const file = fs.statSync(manifestPath(root), { throwIfNoEntry: false });
  const logFile = manifestLogPath(root);
  const log = fs.statSync(logFile, { throwIfNoEntry: false });
  if (!file) return writeManifest(root, m);
  const base = identityOf(file);
  const line = `${JSON.stringify({
    base,
    refreshes: m.refreshes,
    refreshedAt: m.refreshedAt,
    set: [...change.set].flatMap((name) => {
      const f = m.files.get(name);
      return f ? [rowOf(name, f)] : [];
    }),
    del: [...change.del],
  } satisfies LogLine)}\n`;
  const fits = m.id === combined(base, log && identityOf(log)) && (log?.size ?? 0) + line.length <= Math.max(256 * 1024, file.size / 8);
  if (!fits || (log && log.size > 0 && !endsWithNewline(logFile, log.size))) return writeManifest(root, m);
  fs.appendFileSync(logFile, line);
  return combined(base, fileIdentity(logFile));
}

/** Whether the file's last byte (of `size`) ends a line: one cut short is not appended to. */
function endsWithNewline(file: string, size: number): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(1);
    return fs.readSync(fd, b, 0, 1, size - 1) === 1 && b[0] === 0x0a;
  } finally {
    fs.closeSync(fd);
  }
}
