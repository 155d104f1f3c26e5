import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../../errors.js';
import { createFileExclusiveAsync, refusedSymlink } from '../files/files.js';
import { hasControlChar, isNoteName } from '../files/note-files.js';
import { relToRoot, sidecar } from '../files/paths.js';
import { parseNoteText } from '../note/format.js';
import { ensureSidecar } from '../files/sidecar.js';
import { trace } from '../trace/trace.js';
import { checkSize } from './limits.js';

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
  trace(root, 'write', {
    path: rel,
    uuid: typeof fm.uuid === 'string' ? fm.uuid : null,
    kind: typeof fm.kind === 'string' ? fm.kind : null,
    source: typeof fm.author === 'string' ? fm.author : null,
  });
  return rel;
}
