import fs from 'node:fs';
import path from 'node:path';
import { now } from '../context.js';
import { loadNotes, readNoteFile, type Note } from '../corpus/note/notes.js';
import { trace } from '../corpus/trace/trace.js';
import { WINDOW_KEY, windowRef } from './provenance.js';
import { claimTtlMs, ownerGone, recordCapture, transact, whoAmI, type CapturedNote, type Intent, type Txn } from './state.js';

/** The note a create intent wrote, found by its provenance and title, if it reached the disk. */
function createdNote(t: Txn, intent: Intent, notes: () => Note[]): Note | undefined {
  const ref = windowRef(t.job, intent.window);
  const known = new Set((t.state.windows[intent.window]?.notes ?? []).map((n) => n.uuid));
  return notes().find((n) => n.parsed.frontmatter[WINDOW_KEY] === ref && n.title === intent.title && !known.has(n.uuid));
}

/** The note a merge intent appended to, if the fragment is there after the size it had before. */
function mergedNote(t: Txn, intent: Intent): Note | undefined {
  if (!intent.target || intent.fragment === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(path.join(t.root, intent.target));
  } catch {
    return undefined;
  }
  const appended = bytes.subarray(intent.targetSize ?? 0).toString('utf8');
  return appended.includes(intent.fragment.trim()) ? readNoteFile(t.root, intent.target) : undefined;
}

/**
 * Repair what a killed `accept` left: a note written but not recorded is recorded now; an intent
 * whose note never appeared is dropped once its process is gone. Intents of this process are its own
 * business, and another live process's unfinished write is left alone.
 */
export function repairIntents(t: Txn): void {
  if (!t.state.intents.length) return;
  const me = whoAmI();
  let loaded: Note[] | undefined;
  const notes = () => (loaded ??= loadNotes(t.root));
  t.state.intents = t.state.intents.filter((intent) => {
    if (intent.host === me.host && intent.pid === me.pid) return true;
    const note = intent.action === 'create' ? createdNote(t, intent, notes) : mergedNote(t, intent);
    if (note) {
      const captured: CapturedNote = {
        uuid: note.uuid,
        path: note.path,
        title: note.title,
        action: intent.action === 'create' ? 'created' : 'merged',
        at: intent.at,
        digest: intent.digest,
      };
      recordCapture(t.state, intent.window, captured, intent.keep);
      trace(t.root, 'ingest_recovered', { job: t.job, window: intent.window, path: note.path, uuid: note.uuid });
      return false;
    }
    return !(ownerGone(intent) || now() - Date.parse(intent.at) > claimTtlMs());
  });
}

/** A read-modify-write of a job's state with crash repair first. */
export function withJob<T>(root: string, job: string, fn: (t: Txn) => T): Promise<T> {
  return transact(root, job, fn, repairIntents);
}
