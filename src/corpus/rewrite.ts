import { replaceFile } from './files.js';
import { withCorpusLock } from './lock.js';
import { readNoteFile, type Note } from './notes.js';

/** A note's text just before and just after a rewrite the tool made. */
export interface FileChange {
  path: string;
  before: string;
  after: string;
}

/**
 * Re-read a note under the corpus lock and replace it atomically with what `edit` makes of it, so a
 * merge made meanwhile is never lost. `edit` returns undefined (or the same text) to leave it alone.
 */
export async function rewriteNoteLocked(root: string, name: string, edit: (note: Note) => string | undefined): Promise<FileChange | undefined> {
  return withCorpusLock(root, () => {
    const note = readNoteFile(root, name);
    if (!note) return undefined;
    const after = edit(note);
    if (after === undefined || after === note.raw) return undefined;
    replaceFile(root, note.file, after);
    return { path: name, before: note.raw, after };
  });
}
