import type { AcceptResult } from '../ingest/accept.js';
import type {
  ArchiveResult,
  DrainResult,
  IntegrateResult,
  MergeResult,
  RetainResult,
  SplitResult,
  SupersedeResult,
  TendResult,
  TendWritesResult,
  WriteResult,
} from './results.js';
import type { NoteInfo } from '../corpus/note/notes.js';
import type { GardenerRow } from '../pipelines/gardener.js';
import type { RetainResultRow } from '../pipelines/retain.js';

// The messages of the commits the tool makes: what happened in one line, then each decision with
// the notes' titles, so `git log` reads as a record of what the tool did and why.

/** A commit message: what happened in one line, then the decisions, one a line. */
export interface CommitMessage {
  subject: string;
  lines?: string[];
}

/** Counts for people: `3 kept, 1 merged`, or `none` when there are none. */
export function countsText(counts: Record<string, number>, none = 'none'): string {
  return (
    Object.entries(counts)
      .map(([what, n]) => `${n} ${what}`)
      .join(', ') || none
  );
}

/** A note's title from its path (live, or where this call archived it). */
export type TitleOf = (path: string) => string | undefined;

const named = (n: Pick<NoteInfo, 'title' | 'path'>) => `"${n.title}" (${n.path})`;
const namedPath = (p: string, titleOf: TitleOf) => {
  const title = titleOf(p);
  return title === undefined ? p : `"${title}" (${p})`;
};

export function writeCommit(r: Pick<WriteResult, 'note' | 'target'>): CommitMessage {
  if (r.target) return { subject: `write: ${r.note.title} supersedes ${r.target.title}`, lines: [`created ${named(r.note)}`, `superseded ${named(r.target)}`] };
  return { subject: `write: ${r.note.title}`, lines: [`created ${named(r.note)}`] };
}

export function mergeCommit(r: MergeResult): CommitMessage {
  return { subject: `merge: into ${r.note.title}`, lines: [`appended to ${named(r.note)}`] };
}

export function supersedeCommit(r: SupersedeResult): CommitMessage {
  return { subject: `supersede: ${r.old.title} by ${r.new.title}`, lines: [`${named(r.old)} is superseded by ${named(r.new)}`] };
}

export function archiveCommit(r: ArchiveResult): CommitMessage {
  const relinked = r.relinked.map((l) => (l.to ? `${named(l.note)} is now superseded by ${named(l.to)}` : `${named(l.note)} is the current belief again`));
  return { subject: `archive: ${r.note.title}`, lines: [`moved ${named(r.note)} to ${r.archived}`, ...relinked, ...(r.reason ? [`reason: ${r.reason}`] : [])] };
}

export function integrateCommit(r: IntegrateResult): CommitMessage {
  const what =
    r.action === 'created'
      ? `created ${named(r.note)}`
      : r.action === 'merged'
        ? `merged into ${named(r.note)}`
        : `${named(r.note)} supersedes ${named(r.target ?? r.note)}`;
  return { subject: `integrate: ${r.action} ${r.note.title}`, lines: [what, `verdict: ${r.reason}`] };
}

function retainRow(r: RetainResultRow): string {
  const note = r.note ? named(r.note) : `"${r.title}"`;
  if (r.action === 'merged') return `merged into ${note} (${r.kind}: ${r.title})`;
  if (r.action === 'superseded') return `${note} supersedes ${r.target ? named(r.target) : 'a note'} (${r.kind})`;
  return `created ${note} (${r.kind})`;
}

function retainCounts(rows: RetainResultRow[]): string {
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.action] = (counts[r.action] ?? 0) + 1;
  return countsText(counts, 'nothing kept');
}

export function retainCommit(r: RetainResult): CommitMessage {
  return { subject: `retain: ${retainCounts(r.results)}`, lines: [...r.results.map(retainRow), ...(r.spooled ? [`kept for later in ${r.spooled}`] : [])] };
}

export function drainCommit(r: DrainResult): CommitMessage {
  return { subject: `retain --drain: ${retainCounts(r.results)} from ${r.files} inbox file(s)`, lines: r.results.map(retainRow) };
}

export function splitCommit(r: SplitResult): CommitMessage {
  if (r.action === 'not_split') return { subject: `split: kept ${r.note.title} whole` };
  return {
    subject: `split: ${r.note.title} into ${r.children.length} notes`,
    lines: [
      `split ${named(r.note)} into ${r.children.map(named).join(', ')}`,
      ...(r.archived ? [`the original is in ${r.archived}`] : []),
      ...r.failed.map((f) => `not written (its text stays in the parent): ${f.title}: ${f.error}`),
    ],
  };
}

function gardenLine(r: GardenerRow, titleOf: TitleOf): string | undefined {
  const note = namedPath(r.note, titleOf);
  switch (r.action) {
    case 'merged':
      return `fold: ${note} into ${namedPath(r.target ?? '', titleOf)}`;
    case 'linked':
      return `link: ${note} with ${(r.links ?? []).map((p) => namedPath(p, titleOf)).join(', ')}`;
    case 'split':
      return `split: ${note} into ${(r.children ?? []).map((p) => namedPath(p, titleOf)).join(', ')}`;
    case 'failed':
      return `failed: ${note}: ${r.error}`;
    default:
      return undefined;
  }
}

export function gardenerCommit(r: TendWritesResult, titleOf: TitleOf): CommitMessage {
  const lines = r.rows.map((row) => gardenLine(row, titleOf)).filter((l): l is string => l !== undefined);
  return { subject: `tend-writes: ${countsText(r.summary, 'nothing to do')}`, lines };
}

export function tendCommit(r: TendResult): CommitMessage {
  const fixed = r.findings.filter((f) => f.fix);
  const lines = fixed.map(
    (f) => `${f.file}:${f.line} ${f.target}${'target' in (f.fix ?? {}) ? ` -> ${(f.fix as { target?: string }).target}` : ''} (${f.verdict})`,
  );
  return { subject: `tend ${r.action}: ${r.changed} change(s) in ${r.files.length} file(s)`, lines };
}

export function acceptCommit(r: AcceptResult): CommitMessage {
  const what = r.action === 'created' ? `created ${named(r.note)}` : `merged into ${named(r.note)}`;
  return { subject: `ingest accept: ${r.action} ${r.note.title}`, lines: [what, `from job ${r.job}, window ${r.window}`] };
}
