import fs from 'node:fs';
import path from 'node:path';
import { warn } from '../warn.js';
import { sharedNames } from './shared-names.js';

// Which files of a root are notes, without reading them: what an index needs to tell what changed,
// kept apart from the note parser so that knowing the names costs no parser to load.

/** A file name with a newline or another control character: never taken for a note. */
export function hasControlChar(name: string): boolean {
  return /\p{Cc}/u.test(name);
}

/** Whether a top-level file name is a note's by its name alone: `*.md`, not hidden. */
export function isNoteName(name: string): boolean {
  return name.endsWith('.md') && !name.startsWith('.');
}

/**
 * Whether a directory entry of the root is a note: a top-level `*.md` regular file (hidden names
 * excluded), or a symlink that resolves to a regular file directly in the root (any other is
 * skipped with a warning saying why, see `refusedLink`).
 */
function isNoteEntry(root: string, d: fs.Dirent | fs.Stats, name: string, realRoot: () => string): boolean {
  if (!isNoteName(name)) return false;
  if (hasControlChar(name)) {
    // ripgrep, terminals and line-based tools cannot carry such a name: it is skipped everywhere alike.
    warn(`skipping ${JSON.stringify(name)}: the file name holds a control character`);
    return false;
  }
  if (d.isFile()) return true;
  if (!d.isSymbolicLink()) return false;
  const refused = refusedLink(realRoot(), path.join(root, name));
  if (!refused) return true;
  warn(`skipping ${name}: ${refused}`);
  return false;
}

function realRootOf(root: string): () => string {
  let real: string | undefined;
  return () => (real ??= fs.realpathSync(root));
}

/** The note files of a root, in name order (see isNoteEntry). */
export function listNoteFiles(root: string): string[] {
  const realRoot = realRootOf(root);
  const names = fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => isNoteEntry(root, d, d.name, realRoot))
    .map((d) => d.name)
    .sort();
  return sharedNames(root, names);
}

/** Whether `name` is a note file of the root, without listing the whole folder. */
export function isNoteFile(root: string, name: string): boolean {
  // A name longer than a file system allows is simply not there.
  if (Buffer.byteLength(name, 'utf8') > 255) return false;
  const st = fs.lstatSync(path.join(root, name), { throwIfNoEntry: false });
  return Boolean(st && isNoteEntry(root, st, name, realRootOf(root)));
}

/**
 * Why a symlink of the root is not a note, or undefined when it is one. Only a link to a file
 * among the notes is: a file elsewhere (or in a folder below the root, such as `.archive/`) is not
 * part of the corpus, and searching it would show what the corpus never held.
 */
function refusedLink(realRoot: string, file: string): string | undefined {
  let target: string;
  let st: fs.Stats;
  try {
    target = fs.realpathSync(file);
    st = fs.statSync(target);
  } catch {
    return 'broken symlink'; // dangling, a loop, or unreadable
  }
  const rel = path.relative(realRoot, target);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return 'symlink leads outside the corpus';
  if (!st.isFile()) return 'symlink does not lead to a file';
  return path.dirname(target) === realRoot ? undefined : 'symlink leads into a folder below the root';
}
