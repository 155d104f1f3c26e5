import type { CommitOutcome } from '../adapters/git-commit.js';
import type { NoteInfo } from '../corpus/note/notes.js';
import type { GardenerRow } from '../pipelines/gardener.js';
import type { RetainResultRow } from '../pipelines/retain.js';
import type { TendAction } from '../tend/actions.js';
import type { TendReport } from '../tend/run.js';

// What the library's writing operations answer (the objects `--json` prints), in one module that
// imports no other of the library: the operations, their commit messages and the text for people all use it.

/** A live note whose title is like a new note's (src/api/similar.ts). */
export interface SimilarNote {
  path: string;
  title: string;
  uuid: string;
}

export interface WriteResult {
  action: 'created' | 'superseded';
  note: NoteInfo;
  /** The note that was superseded. */
  target?: NoteInfo;
  /** With commits asked for: the commit made, or why none was. */
  commit?: CommitOutcome;
  /** Live notes under other names whose title is like this one's: perhaps the same subject, to merge into. */
  similar: SimilarNote[];
}

export interface MergeResult {
  action: 'merged';
  note: NoteInfo;
  target: NoteInfo;
  commit?: CommitOutcome;
}

export interface SupersedeResult {
  action: 'superseded' | 'noop';
  old: NoteInfo;
  new: NoteInfo;
  commit?: CommitOutcome;
}

export interface ArchiveResult {
  action: 'archived';
  note: NoteInfo;
  /** Where the note went, relative to the root; move it back to undo. */
  archived: string;
  reason: string | null;
  /**
   * The notes the archived one had replaced, re-linked: each is now superseded by `to` (which lists
   * it under `supersedes`), or, with `to` null, the current belief again.
   */
  relinked: { note: NoteInfo; to: NoteInfo | null }[];
  commit?: CommitOutcome;
}

export interface IntegrateResult {
  action: 'created' | 'merged' | 'superseded';
  note: NoteInfo;
  target?: NoteInfo;
  reason: string;
  commit?: CommitOutcome;
}

export interface RetainResult {
  results: RetainResultRow[];
  /** The inbox file keeping what could not be distilled, or null. */
  spooled: string | null;
  /** Why something was kept in the inbox (the run failed part-way). */
  error?: { code: 'llm_unconfigured' | 'llm_failed' | 'llm_unreachable'; message: string };
  commit?: CommitOutcome;
}

export interface DrainResult {
  results: RetainResultRow[];
  drained: number;
  kept: number;
  files: number;
  /** When the LLM endpoint could not be reached: the drain stopped there, the rest waits in the inbox. */
  error?: { code: 'llm_unreachable'; message: string };
  commit?: CommitOutcome;
}

export interface SplitResult {
  action: 'split' | 'not_split';
  note: NoteInfo;
  parent?: NoteInfo;
  children: NoteInfo[];
  archived?: string;
  failed: { title: string; error: string }[];
  commit?: CommitOutcome;
}

export interface TendWritesResult {
  dry_run: boolean;
  rows: GardenerRow[];
  summary: Record<string, number>;
  /** When some notes could not be tended: the first failure's code and a summary; they are tried again next pass. */
  error?: { code: string; message: string; exit: number };
  commit?: CommitOutcome;
}

export type TendResult = Omit<TendReport, 'action'> & { action: TendAction; strict: boolean; commit?: CommitOutcome };

/** The resident server of a corpus, as `serve --status` and `status` report it (docs/server.md). */
export interface ServerState {
  running: true;
  pid: number;
  /** When the server started (ISO date-time). */
  since: string;
  /** Its resident memory now, in MB. */
  rss: number;
  socket: string;
  root: string;
  build: string;
  /** Started by a command for the next call (it exits when idle), rather than run by `serve`. */
  background: boolean;
  /** Where it serves MCP over HTTP (`serve --http`), when it does. */
  http?: string;
  /** Where it serves the viewer (`zk-memory view`), once one was asked for. */
  viewer?: string;
}

/** What runs for a corpus: its server's state, or `running: false` and where its socket would be. */
export type ServerStatus = ServerState | { running: false; socket: string | null; reason?: string };
