import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { recordChange, settings } from '../../context.js';
import { ZkError } from '../../errors.js';
import { readFully, sidecarDir, writeAll, writeNewFile } from '../files/files.js';
import type { HeldLock } from '../files/held-lock.js';
import { sidecar } from '../files/paths.js';
import { warn } from '../warn.js';

// An append is all or nothing. Before it starts, its intent (the note, the length before, the
// fragment) is written to `.zk/intents/`; the intent is removed once the fragment is fully
// written and synced. A failed write is undone on the spot (truncated back); a writer killed
// mid-way (on a network file system one write is many) leaves the intent, and the next lock holder
// truncates the note back to its length before: the fragment was never acknowledged.

interface Intent {
  note: string;
  offset: number;
  length: number;
  fragment: string;
}

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

function intentsDir(root: string): string {
  return path.join(sidecar(root).zk, 'intents');
}

function writeIntent(root: string, intent: Intent): string {
  return writeNewFile(path.join(sidecarDir(intentsDir(root)), `${crypto.randomUUID()}.json`), JSON.stringify(intent));
}

/** Test seam: `append-partial` writes half a fragment and then kills the process, as a crash would. */
function crashMidAppend(fd: number, buf: Buffer): void {
  if (settings().fault() !== 'append-partial') return;
  writeAll(fd, buf.subarray(0, Math.floor(buf.length / 2)));
  fs.fsyncSync(fd);
  process.kill(process.pid, 'SIGKILL');
}

/**
 * Append `text` to the note `name` under the corpus lock: all of it, synced, or nothing (the note
 * stays byte-identical and the error says so, exit 4).
 */
export function appendAllOrNothing(root: string, lock: HeldLock, name: string, text: string): void {
  const file = path.join(root, name);
  const buf = Buffer.from(text, 'utf8');
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND);
  try {
    const offset = fs.fstatSync(fd).size;
    const intent = writeIntent(root, { note: name, offset, length: buf.length, fragment: text });
    try {
      lock.assertHeld();
      crashMidAppend(fd, buf);
      writeAll(fd, buf);
      fs.fsyncSync(fd);
      recordChange({ path: file, what: 'appended' });
    } catch (err) {
      if (err instanceof ZkError) {
        fs.rmSync(intent, { force: true });
        throw err;
      }
      // Undo the part that was written; if even that fails, the intent stays for the next holder.
      fs.ftruncateSync(fd, offset);
      fs.fsyncSync(fd);
      fs.rmSync(intent, { force: true });
      const why = (err as NodeJS.ErrnoException).code === 'ENOSPC' ? 'no space left on device' : (err as Error).message;
      throw new ZkError('io', `${why}: the fragment was not added and ${name} is unchanged`);
    }
    fs.rmSync(intent, { force: true });
  } finally {
    fs.closeSync(fd);
  }
}

function parseIntent(file: string): Intent | undefined {
  try {
    const i = JSON.parse(fs.readFileSync(file, 'utf8')) as Intent;
    const plainName = typeof i.note === 'string' && i.note === path.basename(i.note) && !i.note.startsWith('.');
    if (plainName && Number.isInteger(i.offset) && i.offset >= 0 && typeof i.fragment === 'string') return i;
  } catch {
    // written only in part: the append it announced never started
  }
  return undefined;
}

/** Undo what one unfinished append left, when what follows the old end is part of its fragment. */
function undo(root: string, intent: Intent): void {
  const file = path.join(root, intent.note);
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st || !st.isFile() || st.size === intent.offset) return;
  if (st.size < intent.offset) {
    warn(`${intent.note} is shorter than before an unfinished append; left as it is`);
    return;
  }
  const fragment = Buffer.from(intent.fragment, 'utf8');
  const tail = Buffer.alloc(st.size - intent.offset);
  const fd = fs.openSync(file, fs.constants.O_RDWR | NOFOLLOW);
  try {
    readFully(fd, tail, intent.offset);
    if (tail.length > fragment.length || !tail.equals(fragment.subarray(0, tail.length))) {
      warn(`${intent.note} changed after an unfinished append in a way that is not that append; left as it is`);
      return;
    }
    fs.ftruncateSync(fd, intent.offset);
    fs.fsyncSync(fd);
    recordChange({ path: file, what: 'changed' });
    warn(`undid an unfinished append to ${intent.note} (${tail.length} of ${fragment.length} bytes)`);
  } finally {
    fs.closeSync(fd);
  }
}

/** Finish what killed appends left behind (call holding the lock, before anything else). */
export function recoverAppends(root: string, lock: HeldLock): void {
  const dir = intentsDir(root);
  let names: string[];
  try {
    if (fs.lstatSync(dir).isSymbolicLink()) return;
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(dir, name);
    const intent = parseIntent(file);
    if (intent) {
      lock.assertHeld();
      undo(root, intent);
    }
    fs.rmSync(file, { force: true });
  }
}
