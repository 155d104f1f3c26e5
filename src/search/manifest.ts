import type { FileStamp } from '../corpus/file-stamp.js';

// What the full-text index knows of the corpus: the manifest's shape (src/search/fts.ts reads and
// writes it), apart so that what keeps it between calls (src/search/warm.ts) need not import the index.

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
