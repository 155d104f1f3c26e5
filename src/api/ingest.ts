import { defaultSource } from '../corpus/note/source.js';
import type { AcceptOptions, AcceptResult } from '../ingest/accept.js';
import type { NextResult } from '../ingest/next.js';
import type { JobStatus } from '../ingest/status.js';
import { acceptCommit } from './commit-message.js';
import { committing, type CommitOutcome } from './commit.js';

// Study of source documents: the tool keeps the place and shows context; the reader writes every note.

const ingest = () => import('../ingest/index.js');

/** Who is reading: the source given, else ZK_MEMORY_SOURCE; tells claims apart when several readers share a job. */
const owner = (source?: string) => defaultSource(source) ?? '';

export interface IngestStartRequest {
  /** A file or folder to read. */
  from?: string;
  /** Or the document itself (Markdown, plain text or HTML), named by `name`. */
  text?: string;
  name?: string;
  windowChars?: number;
  /** The folders `from` must lie in (a reader that is not the host's owner); undefined: any path. */
  allowedFolders?: string[];
}

export type IngestStartResult = JobStatus & { action: 'created' | 'exists' };

/** Inventory a file or folder, convert it and cut it into reading windows (or resume the same job). */
export async function ingestStart(root: string, o: IngestStartRequest): Promise<IngestStartResult> {
  const { startJob, jobStatus } = await ingest();
  const r = await startJob(root, o);
  return { action: r.action, ...(await jobStatus(root, r.manifest.name)) };
}

export interface IngestReader {
  job?: string;
  window?: string;
  source?: string;
}

/** Claim the next reading window and show it with its context (writes no note). */
export async function ingestNext(root: string, o: IngestReader & { related?: number } = {}): Promise<NextResult> {
  const { nextWindow } = await ingest();
  return nextWindow(root, { job: o.job, window: o.window, owner: owner(o.source), related: o.related });
}

/** What accept takes: the reader names itself by `source` (the owner of its claims is derived from it). */
export type IngestAcceptRequest = Omit<AcceptOptions, 'owner'>;

/** Write the note for the open window: a new note, or a fragment merged into an existing one. */
export async function ingestAccept(root: string, o: IngestAcceptRequest): Promise<AcceptResult & { commit?: CommitOutcome }> {
  const { acceptWindow } = await ingest();
  return committing(root, () => acceptWindow(root, { ...o, owner: owner(o.source) }), acceptCommit);
}

/** Close the open window without a note. */
export async function ingestSkip(root: string, o: IngestReader & { reason?: string } = {}) {
  const { skipWindow } = await ingest();
  return skipWindow(root, { ...o, owner: owner(o.source) });
}

/** Where a job stands. */
export async function ingestStatus(root: string, o: { job?: string } = {}): Promise<JobStatus> {
  const { jobStatus } = await ingest();
  return jobStatus(root, o.job);
}
