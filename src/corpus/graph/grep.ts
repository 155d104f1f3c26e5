import { current } from '../../context.js';
import { isNoteFile, listNoteFiles } from '../files/note-files.js';

/**
 * The note files that may match: what the grep port found, else every note file. The one fallback
 * policy for a missing or failing grep: callers read the candidates and check them anyway.
 */
export function candidateFiles(root: string, patterns: string[], o: { fixed: boolean }): string[] {
  const found = current().grep?.filesMatching(root, patterns, o);
  // What the port found is checked as a listing would be (odd names, symlinks leading out are skipped).
  return found ? found.filter((name) => isNoteFile(root, name)) : listNoteFiles(root);
}
