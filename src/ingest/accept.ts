import fs from 'node:fs';
import { now } from '../context.js';
import { ZkError } from '../errors.js';
import { sha256 } from '../corpus/files/files.js';
import { noteInfo, type NoteInfo } from '../corpus/note/notes.js';
import { appendFragment } from '../corpus/ops/merge.js';
import { writeNote } from '../corpus/ops/write.js';
import { resolveRef } from '../corpus/graph/refs.js';
import { requireSlug, titleSlug } from '../corpus/note/slug.js';
import { trace } from '../corpus/trace/trace.js';
import { claimWindow, currentReader, requireOpen, targetWindow } from './claims.js';
import { provenance } from './provenance.js';
import { withJob } from './recover.js';
import { findWindow, pickJob, recordCapture, touch, whoAmI, windowState, type CapturedNote, type Intent, type Txn } from './state.js';
import { hint } from '../hints.js';
import { crashAt } from '../corpus/ops/fault.js';

export interface AcceptOptions {
  job?: string;
  window?: string;
  owner?: string;
  /** The agent's own words: the body of a new note, or the fragment of a merge. */
  body: string;
  title?: string;
  slug?: string;
  kind?: string;
  /** Append to this note instead of creating one. */
  merge?: string;
  /** Leave the window open for another note. */
  keep?: boolean;
  source?: string;
  date?: string;
}

export interface AcceptResult {
  job: string;
  window: string;
  action: 'created' | 'merged';
  note: NoteInfo;
  /** True when this exact accept had already been captured (a repeat after a crash): nothing new was written. */
  repeated: boolean;
  window_status: 'open' | 'done';
}

function checkRequest(o: AcceptOptions): void {
  if (!o.body.trim()) throw new ZkError('usage', 'empty body: write the note in your own words (argument or stdin)');
  if (o.merge !== undefined && (o.title !== undefined || o.slug !== undefined || o.kind !== undefined)) {
    throw new ZkError(
      'usage',
      `${hint('option', 'merge')} appends to an existing note: ${['title', 'slug', 'kind'].map((o) => hint('option', o)).join(', ')} do not apply`,
    );
  }
  if (o.merge === undefined && !o.title?.trim())
    throw new ZkError(
      'usage',
      `${hint('command', 'ingest accept')} needs ${hint('option', 'title')} (a new note) or ${hint('option', 'merge')} REF (append to one)`,
    );
}

/** The identity of an accept request: the same request twice must not make two notes. */
function requestDigest(o: AcceptOptions): string {
  return sha256(JSON.stringify([o.merge ?? null, o.title?.trim() ?? null, o.slug ?? null, o.kind ?? null, o.body.trim()]));
}

/** Record the intent under the lock, or find that this request was already captured. */
interface Prepared {
  id: string;
  /** Set when this request was captured before: the note, and whether the window is still open. */
  done?: { note: CapturedNote; status: 'open' | 'done' };
  intent?: Intent;
  extra?: Record<string, string | undefined>;
}

function windowStatus(t: Txn, id: string): 'open' | 'done' {
  return t.state.windows[id]?.status === 'open' ? 'open' : 'done';
}

/** A window where this very request was already captured (the named one, else any). */
function capturedBefore(t: Txn, digest: string, windowFlag?: string): Prepared | undefined {
  const ids = windowFlag !== undefined ? [findWindow(t.manifest, windowFlag.trim()).window.id] : Object.keys(t.state.windows);
  for (const id of ids) {
    const note = t.state.windows[id]?.notes.find((n) => n.digest === digest);
    if (note) return { id, done: { note, status: windowStatus(t, id) } };
  }
  return undefined;
}

function prepare(t: Txn, o: AcceptOptions, digest: string): Prepared {
  const repeat = capturedBefore(t, digest, o.window);
  if (repeat) return repeat;
  const id = targetWindow(t, o.window, currentReader(o.owner));
  requireOpen(t, id);
  const { doc, window } = findWindow(t.manifest, id);
  const target = o.merge !== undefined ? resolveRef(t.root, o.merge) : undefined;
  const intent: Intent = {
    window: id,
    action: target ? 'merge' : 'create',
    digest,
    title: target ? target.title : (o.title ?? '').replace(/\s+/g, ' ').trim(),
    keep: Boolean(o.keep),
    ...(target ? { target: target.path, targetSize: fs.statSync(target.file).size, fragment: o.body.trim() } : {}),
    ...whoAmI(),
    at: new Date(now()).toISOString(),
  };
  t.state.intents.push(intent);
  return { id, intent, extra: provenance(t.job, doc, window) };
}

function dropIntent(t: Txn, intent: Intent): void {
  t.state.intents = t.state.intents.filter((i) => !(i.digest === intent.digest && i.pid === intent.pid && i.host === intent.host));
}

/**
 * Capture the agent's note for a window: record the intent, write (or merge) the note, then record
 * the note on the window. A crash in between is repaired by the next command (see recover.ts).
 */
export async function acceptWindow(root: string, o: AcceptOptions): Promise<AcceptResult> {
  checkRequest(o);
  const job = pickJob(root, o.job);
  const digest = requestDigest(o);
  const prep = await withJob(root, job, (t) => prepare(t, o, digest));
  if (prep.done) {
    const n = prep.done.note;
    return { job, window: prep.id, action: n.action, note: { ...noteStub(n), ...noteInfoOf(root, n.path) }, repeated: true, window_status: prep.done.status };
  }
  const intent = prep.intent as Intent;
  let note;
  try {
    note = intent.target
      ? await appendFragment(root, intent.target, o.body, { source: o.source, date: o.date, origin: prep.extra })
      : writeNote(root, {
          slug: o.slug ?? requireSlug(o.title ?? '', titleSlug),
          title: o.title ?? '',
          body: o.body,
          kind: o.kind,
          source: o.source,
          date: o.date,
          unique: true,
          extra: prep.extra,
        });
  } catch (err) {
    await withJob(root, job, (t) => dropIntent(t, intent)).catch(() => undefined);
    throw err;
  }
  // Test seam: dies between the note write and its record.
  crashAt('ingest-after-write');
  const action = intent.target ? 'merged' : 'created';
  const captured: CapturedNote = { uuid: note.uuid, path: note.path, title: note.title, action, at: new Date(now()).toISOString(), digest };
  const status = await withJob(root, job, (t) => {
    dropIntent(t, intent);
    recordCapture(t.state, prep.id, captured, Boolean(o.keep));
    if (o.keep) claimWindow(t, prep.id, o.owner ?? '');
    return windowStatus(t, prep.id);
  });
  trace(root, 'ingest_accept', {
    job,
    window: prep.id,
    action,
    path: note.path,
    uuid: note.uuid,
    keep: Boolean(o.keep),
    source_doc: prep.extra?.source_doc ?? null,
  });
  return { job, window: prep.id, action, note: noteInfo(note), repeated: false, window_status: status };
}

/** What is known of a captured note without reading it. */
function noteStub(n: CapturedNote): NoteInfo {
  return { uuid: n.uuid, slug: n.path.replace(/\.md$/, ''), path: n.path, title: n.title, date: '', kind: null, author: null, superseded_by: null };
}

/** The note as it is now on disk, when it is still there. */
function noteInfoOf(root: string, notePath: string): Partial<NoteInfo> {
  try {
    return noteInfo(resolveRef(root, notePath));
  } catch {
    return {};
  }
}

/** Close a window without a note: it holds nothing worth keeping (a window with notes counts as done). */
export async function skipWindow(root: string, o: { job?: string; window?: string; owner?: string; reason?: string }) {
  const job = pickJob(root, o.job);
  const r = await withJob(root, job, (t) => {
    const id = targetWindow(t, o.window, currentReader(o.owner));
    requireOpen(t, id);
    const w = windowState(t.state, id);
    w.status = w.notes.length ? 'done' : 'skipped';
    delete w.claim;
    if (o.reason?.trim()) w.reason = o.reason.trim();
    touch(t.state, 'skip', id);
    return { window: id, window_status: w.status };
  });
  trace(root, 'ingest_skip', { job, window: r.window, reason: o.reason?.trim() || null });
  return { job, ...r };
}
