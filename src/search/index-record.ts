import fs from 'node:fs';
import { replaceDerivedFile } from '../corpus/files/files.js';

// The index's own records (the manifest, the marks, the vector state): each a JSON file in the
// index folder with a version, replaced whole, never rewritten in place. One of another version,
// missing or damaged, is no record: its reader rebuilds or checks from the notes.

/**
 * Which version of a record's file was read: it is replaced, never rewritten in place, so its
 * inode, mtime and size tell one version from another.
 */
export function identityOf(st: fs.Stats): string {
  return `${st.ino}:${st.mtimeMs}:${st.size}`;
}

/** The identity of the file as it is now (see `identityOf`); undefined when there is none. */
export function fileIdentity(file: string): string | undefined {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st && identityOf(st);
}

/**
 * A record of version `version`, with the identity of the very file it was read from; undefined
 * when it is missing, damaged or of another version.
 */
export function readIndexRecord<F extends { version: number }>(file: string, version: number): { record: F; id: string } | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const id = identityOf(fs.fstatSync(fd));
    const record = JSON.parse(fs.readFileSync(fd, 'utf8')) as F;
    return record?.version === version ? { record, id } : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Replace a record atomically; the identity of the file written. The temporary file is made beside
 * it, in the index folder, which may be on another file system than the corpus (a per-host cache).
 */
export function writeIndexRecord(file: string, record: { version: number }): string | undefined {
  replaceDerivedFile(file, JSON.stringify(record));
  return fileIdentity(file);
}
