import path from 'node:path';
import type { FileStamp } from '../corpus/files/file-stamp.js';
import { sha256 } from '../corpus/files/files.js';
import { fileIdentity, readIndexRecord, writeIndexRecord, writeIndexText } from './index-record.js';
import { indexDir } from './lance.js';

// What the full-text index knows of the corpus, and its file: `manifest.json` in the index folder,
// one compact row per note (src/search/changes.ts compares the notes on disk with it).

/** What the index knows of one note file, to tell cheaply whether it changed. */
export interface FileState extends FileStamp {
  /** The first 16 hex digits of the content's sha256: enough to tell a real change from a touch. */
  hash: string;
  /** Stated too soon after a change for its stamp to vouch for its content: read again next time. */
  unsure: boolean;
}

/** What the index knows of the corpus (on disk as compact rows, it is read before every query). */
export interface Manifest {
  files: Map<string, FileState>;
  refreshes: number;
  builtAt: string;
  refreshedAt: string;
}

/** A manifest with the identity of the file it was read from or written as. */
export type KnownManifest = Manifest & { id: string };

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

/** The manifest file's identity: marks that name another describe an older manifest and are not trusted. */
export function manifestId(root: string): string | undefined {
  return fileIdentity(manifestPath(root));
}

/** The manifest and the identity of the very file it was read from. */
export function readManifest(root: string): KnownManifest | undefined {
  const read = readIndexRecord<ManifestFile>(manifestPath(root), MANIFEST_VERSION);
  if (!read || !Array.isArray(read.record.files)) return undefined;
  const m = read.record;
  const files = new Map<string, FileState>();
  for (const [name, mtimeMs, size, hash, ctimeMs, ino, unsure] of m.files) files.set(name, { mtimeMs, size, hash, ctimeMs, ino, unsure: unsure !== 0 });
  return { files, refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt, id: read.id };
}

type Row = ManifestFile['files'][number];
const rowOf = (name: string, f: FileState): Row => [name, f.mtimeMs, f.size, f.hash, f.ctimeMs, f.ino, f.unsure ? 1 : 0];

/**
 * Each note's row of the manifest file as JSON text, kept by a warm process (src/search/warm.ts):
 * a refresh then writes the 50,000 rows of a large corpus by joining them, turning into text only
 * the rows whose state changed (a state is replaced, never changed in place).
 */
export class ManifestRows {
  private readonly rows = new Map<string, { state: FileState; text: string }>();

  /** The manifest's file text. */
  text(m: Manifest): string {
    const out: string[] = [];
    for (const [name, state] of m.files) {
      let row = this.rows.get(name);
      if (row?.state !== state) this.rows.set(name, (row = { state, text: JSON.stringify(rowOf(name, state)) }));
      out.push(row.text);
    }
    // Rows of notes no longer there are forgotten.
    if (this.rows.size > m.files.size) for (const name of this.rows.keys()) if (!m.files.has(name)) this.rows.delete(name);
    const head = JSON.stringify({ version: MANIFEST_VERSION, refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt });
    return `${head.slice(0, -1)},"files":[${out.join(',')}]}`;
  }
}

/** Write the manifest (under the index lock); returns the written file's identity. `rows`: a warm process's kept rows. */
export function writeManifest(root: string, m: Manifest, rows?: ManifestRows): string | undefined {
  if (rows) return writeIndexText(manifestPath(root), rows.text(m));
  const out: ManifestFile = {
    version: MANIFEST_VERSION, refreshes: m.refreshes, builtAt: m.builtAt, refreshedAt: m.refreshedAt,
    files: [...m.files].map(([name, f]) => rowOf(name, f)),
  };
  return writeIndexRecord(manifestPath(root), out);
}
