import fs from 'node:fs';
import path from 'node:path';
import { asZkError, ZkError } from '../errors.js';
import { listNotes } from '../corpus/ops/list.js';
import { retireNote } from '../corpus/ops/retire.js';
import { noteInfo, type NoteInfo } from '../corpus/note/notes.js';
import { relToRoot, sidecar } from '../corpus/files/paths.js';
import { resolveRef } from '../corpus/graph/refs.js';
import { corpusStatus } from '../corpus/ops/status.js';
import { trace } from '../corpus/trace/trace.js';
import { endpointConfigured, embedConfig, llmConfig } from '../llm/config.js';
import { findInboxFile, inboxFiles, takeInboxFile, type InboxEntry } from '../pipelines/inbox.js';
import { configuredBackend } from '../search/backends.js';
import { archiveCommit } from './commit-message.js';
import type { ArchiveResult } from './results.js';
import { committing } from './commit.js';

// What an agent (or a person) needs to find their way around a corpus: an overview, the inbox of
// what could not be judged, and a way to retract a note without deleting anything.

export interface OverviewResult {
  root: string;
  notes: number;
  by_kind: Record<string, number>;
  superseded: number;
  archived: number;
  /** Items parked in the inbox, waiting for an LLM (or for someone to write them by hand). */
  inbox: number;
  /** The most recently changed notes, newest first. */
  recent: NoteInfo[];
  llm: { configured: boolean; model: string | null };
  embeddings: { configured: boolean; model: string | null };
  /** The search backend in force (`auto` answers with hybrid when embeddings are configured, else fts). */
  backend: string;
  /** Whether the corpus is in a git work tree (what `log` and commits need), or why not. */
  git: GitWorkTree;
}

export type GitWorkTree = { work_tree: true } | { work_tree: false; reason: string };

/** Whether the corpus is in a git work tree, without looking at what is committed (see `status` for that). */
export async function gitWorkTree(root: string): Promise<GitWorkTree> {
  const { workTree } = await import('../adapters/git.js');
  const tree = await workTree(root);
  return 'skipped' in tree ? { work_tree: false, reason: tree.skipped } : { work_tree: true };
}

/** Counts by kind, recent titles, the inbox, what is configured, and whether there is git. */
export async function overview(root: string, o: { recent?: number } = {}): Promise<OverviewResult> {
  const s = corpusStatus(root);
  const llm = endpointConfigured('llm') ? llmConfig() : undefined;
  const embed = endpointConfigured('embed') ? embedConfig() : undefined;
  return {
    root,
    notes: s.notes,
    by_kind: s.byKind,
    superseded: s.superseded,
    archived: s.archived,
    inbox: s.inbox,
    recent: listNotes(root, { recent: o.recent ?? 5 }).map(noteInfo),
    llm: { configured: Boolean(llm), model: llm?.model ?? null },
    embeddings: { configured: Boolean(embed), model: embed?.model ?? null },
    backend: configuredBackend(),
    git: await gitWorkTree(root),
  };
}

/**
 * Retract a note: it moves to `.archive/` (never deleted), and the trace says why. What it replaced
 * is re-linked to what replaced it, or is the current belief again (src/corpus/ops/relink.ts).
 */
export async function archive(root: string, ref: string, o: { reason?: string } = {}): Promise<ArchiveResult> {
  return committing(
    root,
    async () => {
      const note = noteInfo(resolveRef(root, ref));
      const { archived, relinked } = await retireNote(root, note.path);
      const reason = o.reason?.trim() || null;
      trace(root, 'retract', { path: note.path, archived, reason });
      return {
        action: 'archived' as const,
        note,
        archived,
        reason,
        relinked: relinked.map((r) => ({ note: noteInfo(r.note), to: r.to ? noteInfo(r.to) : null })),
      };
    },
    archiveCommit,
  );
}

export interface InboxItemView {
  type: 'text' | 'candidate';
  /** The text to distill, or the candidate's content. */
  text: string;
  title?: string;
  kind?: string;
}

export interface InboxFileView {
  file: string;
  created: string;
  source: string | null;
  reason: string;
  items: InboxItemView[];
}

export interface InboxResult {
  files: InboxFileView[];
  items: number;
}

/** What is parked in the inbox: memories that could not be judged yet, oldest first. */
export function inbox(root: string): InboxResult {
  const files = inboxFiles(root).flatMap((name) => readInboxFile(root, name) ?? []);
  return { files, items: files.reduce((n, f) => n + f.items.length, 0) };
}

/** One inbox file as `inbox` shows it; undefined when it is gone (claimed by a drain meanwhile). */
export function readInboxFile(root: string, name: string): InboxFileView | undefined {
  const dir = sidecar(root).inbox;
  const file = relToRoot(root, path.join(dir, name));
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, name), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { file, created: '', source: null, reason: `unreadable: ${asZkError(err).message}`, items: [] };
  }
  // A file damaged by hand is shown as such (so it can be dismissed), never a failure of the whole list.
  try {
    const entry = JSON.parse(text) as InboxEntry;
    const items = (entry.items ?? []).map(
      (it): InboxItemView =>
        it.type === 'text'
          ? { type: 'text', text: String(it.text) }
          : { type: 'candidate', text: String(it.candidate.content), title: it.candidate.title || it.candidate.topic, kind: it.candidate.kind },
    );
    return { file, created: String(entry.created ?? ''), source: entry.source ?? null, reason: String(entry.reason ?? ''), items };
  } catch (err) {
    return { file, created: '', source: null, reason: `unreadable: not an inbox entry (${(err as Error).message.split('\n')[0]})`, items: [] };
  }
}

/** How an inbox file was set aside: dismissed (its memories written by other means), done or skipped by an agent. */
export type InboxSetAside = 'dismissed' | 'done' | 'skipped';

/**
 * Set an inbox file aside once its memories were written by other means (by hand, or by an agent
 * with `write`), or judged to hold nothing worth keeping: it moves to `.zk/inbox/dismissed/`, never
 * deleted, also from a claim an agent holds (inbox_next).
 */
export function inboxDismiss(root: string, file: string, o: { as?: InboxSetAside; reason?: string } = {}): { action: InboxSetAside; file: string; to: string } {
  const dir = sidecar(root).inbox;
  const name = path.basename(file);
  if (!/^[^/\\]+\.json$/.test(name) || name.includes('.claimed') || name !== file.replace(/^\.zk\/inbox\//, '')) {
    throw new ZkError('invalid_ref', `invalid inbox file: ${JSON.stringify(file)} (name one that inbox lists)`);
  }
  const from = findInboxFile(root, name);
  if (!from) throw new ZkError('not_found', `no such inbox file: ${file}`);
  const doneDir = path.join(dir, 'dismissed');
  fs.mkdirSync(doneDir, { recursive: true });
  const to = path.join(doneDir, name);
  fs.renameSync(from, to);
  const action = o.as ?? 'dismissed';
  const reason = o.reason?.trim() || undefined;
  trace(root, action === 'dismissed' ? 'inbox_dismiss' : `inbox_${action === 'done' ? 'done' : 'skip'}`, {
    file: relToRoot(root, path.join(dir, name)),
    to: relToRoot(root, to),
    ...(reason ? { reason } : {}),
  });
  return { action, file: relToRoot(root, path.join(dir, name)), to: relToRoot(root, to) };
}

export type InboxNextResult = ({ done: false; held: boolean; remaining: number } & InboxFileView) | { done: true; held: false; remaining: 0 };

/**
 * The oldest input waiting in the inbox, taken for the agent to keep by hand: it writes what
 * matters with write or merge, then calls inbox_done (or inbox_skip). No drain takes it meanwhile.
 * `holder` names the agent's session (letters and digits; default: this process): a second call by
 * the same holder shows the same input again, and another holder is given another.
 */
export function inboxNext(root: string, o: { holder?: string } = {}): InboxNextResult {
  const taken = takeInboxFile(root, o.holder);
  if (!taken) return { done: true, held: false, remaining: 0 };
  const view = readInboxFile(root, path.relative(sidecar(root).inbox, taken.at));
  const file = relToRoot(root, path.join(sidecar(root).inbox, taken.name));
  const shown: InboxFileView = view ? { ...view, file } : { file, created: '', source: null, reason: 'unreadable', items: [] };
  return { done: false, held: taken.held, remaining: inboxFiles(root).length, ...shown };
}
