import fs from 'node:fs';
import path from 'node:path';
import { settings } from '../../context.js';
import { ZkError } from '../../errors.js';
import { writeTemp } from '../files/files.js';
import { withCorpusLock } from '../lock/lock.js';
import { readNoteFile, type Note } from '../note/notes.js';
import { readStateOf, swapIfUnchanged } from '../files/swap.js';
import { trace } from '../trace/trace.js';

/** A note's text just before and just after a rewrite the tool made. */
export interface FileChange {
  path: string;
  before: string;
  after: string;
}

/**
 * Test seam (`ZK_MEMORY_FAULT=rewrite-pause`): a rewrite stops between its plan and its swap while
 * `.zk/paused` exists, after making it, so a test can land writes in between for certain.
 */
async function pausedAfterPlan(root: string): Promise<void> {
  if (settings().fault() !== 'rewrite-pause') return;
  const flag = path.join(root, '.zk', 'paused');
  fs.writeFileSync(flag, String(process.pid));
  while (fs.existsSync(flag)) await new Promise((r) => setTimeout(r, 20));
}

/** How many times a rewrite is planned again when the note keeps changing under it. */
const ATTEMPTS = 8;

/**
 * Rewrite a note with what `edit` makes of it, as a compare-and-swap: the new text is planned and
 * written to a temp file outside the lock; under the lock the temp file replaces the note only if
 * the note still begins with exactly the bytes it was planned from. What was appended after them
 * meanwhile (a merge, a line added by hand) is carried into the new version (src/corpus/files/swap.ts)
 * and traced as `carried`; if they changed, `edit` runs again on the new text, so nothing written
 * meanwhile is ever lost. `edit` returns undefined (or the same text) to leave the note alone.
 */
export async function rewriteNoteLocked(root: string, name: string, edit: (note: Note) => string | undefined): Promise<FileChange | undefined> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const note = readNoteFile(root, name);
    if (!note) return undefined;
    const after = edit(note);
    if (after === undefined || after === note.raw) return undefined;
    const tmp = writeTemp(note.file, after, fs.statSync(note.file).mode & 0o7777);
    try {
      await pausedAfterPlan(root);
      const expected = readStateOf(note);
      const swapped = await withCorpusLock(root, (lock) => swapIfUnchanged(lock, expected, tmp));
      if (!swapped) continue;
      // What was appended meanwhile (a merge, a line added by hand) is in the new version too.
      if (swapped.carried) trace(root, 'carried', { path: name, bytes: swapped.carried });
      return { path: name, before: note.raw, after };
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  throw new ZkError('busy', `corpus busy: ${name} kept changing while it was being rewritten; it was left as it is (run again)`);
}
