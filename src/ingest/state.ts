import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { now, settings } from '../context.js';
import { ZkError } from '../errors.js';
import { replaceFile } from '../corpus/files/files.js';
import { withCorpusLock } from '../corpus/lock/lock.js';
import { sidecar } from '../corpus/files/paths.js';
import { slugify } from '../corpus/note/slug.js';
import type { DocumentKind } from './convert.js';
import type { Window } from './windows.js';
import { hint } from '../hints.js';

/** A reading window of a job: its id (`d2-w5`: document 2, window 5) and where it lies in the text. */
export interface JobWindow extends Window {
  id: string;
}

export interface JobDocument {
  id: string;
  /** Relative to the job's source folder (the file name when the source is one file). */
  path: string;
  kind: DocumentKind;
  /** sha256 of the source bytes. */
  sha256: string;
  /** Length of the converted text the windows tile. */
  chars: number;
  windows: JobWindow[];
}

/**
 * The manifest formats this version reads: 1 cut one window per section, 2 reads small neighbouring
 * sections together (windows may list their `sections`). A job keeps the windows it was started with.
 */
const MANIFEST_VERSIONS = [1, 2] as const;

/** What `ingest start` found: written once, never changed. */
export interface JobManifest {
  version: (typeof MANIFEST_VERSIONS)[number];
  name: string;
  from: string;
  /** sha256 over the paths and bytes of every source file, readable or not. */
  fingerprint: string;
  created: string;
  windowChars: number;
  documents: JobDocument[];
  unsupported: Array<{ path: string; reason: string }>;
}

export interface CapturedNote {
  uuid: string;
  path: string;
  title: string;
  action: 'created' | 'merged';
  at: string;
  /** Hash of the accept request that produced it, so a repeated accept is answered, not repeated. */
  digest: string;
}

export interface Claim {
  owner: string;
  host: string;
  pid: number;
  /** When the window was claimed (absent in claims made before this was recorded). */
  at?: string;
  expires: string;
}

export interface WindowState {
  status: 'open' | 'done' | 'skipped';
  claim?: Claim;
  notes: CapturedNote[];
  reason?: string;
}

/** An accept on its way: recorded before the note is written, so a crash in between can be repaired. */
export interface Intent {
  window: string;
  action: 'create' | 'merge';
  digest: string;
  title: string;
  keep: boolean;
  /** For a merge: the target file and its size before the append. */
  target?: string;
  targetSize?: number;
  fragment?: string;
  host: string;
  pid: number;
  at: string;
}

/** The progress of a job: read and rewritten under the corpus lock. */
export interface JobState {
  windows: Record<string, WindowState>;
  intents: Intent[];
  lastEvent?: { at: string; event: string; window?: string };
}

export function jobDir(root: string, name: string): string {
  return path.join(sidecar(root).ingest, name);
}

export const jobFiles = (root: string, name: string) => {
  const dir = jobDir(root, name);
  return {
    dir,
    manifest: path.join(dir, 'job.json'),
    state: path.join(dir, 'state.json'),
    docs: path.join(dir, 'docs'),
  };
};

/** The cached Markdown text of a document. */
export function documentText(root: string, job: string, doc: JobDocument): string {
  return fs.readFileSync(path.join(jobFiles(root, job).docs, `${doc.id}.md`), 'utf8');
}

/** A job name as a slug, so it is always a safe folder name. */
export function jobName(name: string): string {
  const slug = slugify(name);
  if (!slug) throw new ZkError('usage', `invalid job name: ${JSON.stringify(name)} has no letters or digits`);
  return slug;
}

/** The jobs of a corpus, by name. */
export function listJobs(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(sidecar(root).ingest);
  } catch {
    return [];
  }
  return names.filter((n) => !n.startsWith('.') && fs.existsSync(jobFiles(root, n).manifest)).sort();
}

/** The job a command means: the one named, else the only job, else the only unfinished one. */
export function pickJob(root: string, flag?: string): string {
  const jobs = listJobs(root);
  if (flag !== undefined) {
    const name = jobName(flag);
    if (!jobs.includes(name)) throw new ZkError('not_found', `unknown ingest job: ${flag}`);
    return name;
  }
  if (!jobs.length) throw new ZkError('not_found', `no ingest job: ${hint('startJob')}`);
  if (jobs.length === 1) return jobs[0];
  const unfinished = jobs.filter((j) => pendingCount(loadManifest(root, j), loadState(root, j)) > 0);
  if (unfinished.length === 1) return unfinished[0];
  throw new ZkError('usage', `several ingest jobs (${jobs.join(', ')}): ${hint('nameJob')}`);
}

function readJson<T>(file: string, what: string): T {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code) throw err;
    throw new ZkError('io', `${what} is damaged: ${path.basename(path.dirname(file))}/${path.basename(file)}`);
  }
}

export function loadManifest(root: string, job: string): JobManifest {
  const m = readJson<JobManifest>(jobFiles(root, job).manifest, 'ingest job');
  if (!(MANIFEST_VERSIONS as readonly number[]).includes(m.version)) {
    throw new ZkError(
      'refused',
      `ingest job ${job} was started by a newer zk-memory (job format ${m.version}; this one reads ${MANIFEST_VERSIONS.join(' and ')}): update zk-memory to go on with it`,
    );
  }
  return m;
}

export function loadState(root: string, job: string): JobState {
  const s = readJson<Partial<JobState>>(jobFiles(root, job).state, 'ingest state');
  return { windows: s.windows ?? {}, intents: s.intents ?? [], lastEvent: s.lastEvent };
}

export function emptyState(): JobState {
  return { windows: {}, intents: [] };
}

/** Closed windows are done or skipped; everything else is still to read. */
export function isClosed(w: WindowState | undefined): boolean {
  return w?.status === 'done' || w?.status === 'skipped';
}

export function pendingCount(m: JobManifest, s: JobState): number {
  return m.documents.reduce((n, d) => n + d.windows.filter((w) => !isClosed(s.windows[w.id])).length, 0);
}

/** Who this process is, for claims and intents. */
export function whoAmI(): { host: string; pid: number } {
  return { host: os.hostname(), pid: process.pid };
}

/** Is the process behind a claim or intent certainly gone? Only knowable on the same host. */
export function ownerGone(o: { host: string; pid: number }): boolean {
  if (o.host !== os.hostname()) return false;
  try {
    process.kill(o.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export function touch(s: JobState, event: string, window?: string): void {
  s.lastEvent = { at: new Date(now()).toISOString(), event, ...(window ? { window } : {}) };
}

export interface Txn {
  root: string;
  job: string;
  manifest: JobManifest;
  state: JobState;
}

/**
 * Read-modify-write of a job's state under the corpus lock. `prepare` runs first on every
 * transaction (crash repair); the state is rewritten atomically only when it changed.
 */
export async function transact<T>(root: string, job: string, fn: (t: Txn) => T, prepare?: (t: Txn) => void): Promise<T> {
  return withCorpusLock(root, (lock) => {
    const t: Txn = { root, job, manifest: loadManifest(root, job), state: loadState(root, job) };
    let saved = JSON.stringify(t.state);
    const saveIfChanged = () => {
      const now = JSON.stringify(t.state);
      if (now !== saved) replaceFile(root, jobFiles(root, job).state, `${JSON.stringify(t.state, null, 1)}\n`, lock);
      saved = now;
    };
    // The repair is kept even when the step after it refuses.
    prepare?.(t);
    saveIfChanged();
    const result = fn(t);
    saveIfChanged();
    return result;
  });
}

/** Find a window of a job by id. */
export function findWindow(m: JobManifest, id: string): { doc: JobDocument; window: JobWindow; index: number } {
  for (const doc of m.documents) {
    const index = doc.windows.findIndex((w) => w.id === id);
    if (index >= 0) return { doc, window: doc.windows[index], index };
  }
  throw new ZkError('not_found', `unknown window: ${id} (job ${m.name})`);
}

/** How long a claimed window stays with its reader (ZK_MEMORY_INGEST_CLAIM_TTL seconds; default 30 min). */
export function claimTtlMs(): number {
  return settings().ingestClaimTtlMs();
}

export function claimExpired(c: Claim | undefined, time = now()): boolean {
  return !c || Date.parse(c.expires) <= time;
}

/** The state of a window, created on first touch. */
export function windowState(s: JobState, id: string): WindowState {
  return (s.windows[id] ??= { status: 'open', notes: [] });
}

/** Record a captured note on its window (once per note); the window closes unless kept open. */
export function recordCapture(s: JobState, windowId: string, note: CapturedNote, keep: boolean): void {
  const w = windowState(s, windowId);
  if (!w.notes.some((n) => n.uuid === note.uuid && n.digest === note.digest)) w.notes.push(note);
  if (keep) {
    if (w.status !== 'done') w.status = 'open';
  } else {
    w.status = 'done';
    delete w.claim;
  }
  touch(s, note.action === 'merged' ? 'merge' : 'accept', windowId);
}
