// The composition root: the one place the adapters are wired into a call's context, for every kind
// of process (the command line, an MCP session on stdio, the resident server and its viewer, a
// program importing the library), and the one place a long-running process's resident state is
// made. Library code gets every port it uses from its context, never by importing an adapter.
import { ripgrepNoteGrep } from './adapters/ripgrep.js';
import { watchRoot } from './adapters/note-watch.js';
import { journalWrite } from './search/journal.js';
import { noteCacheFile } from './search/location.js';
import { ResidentIndex } from './search/resident-index.js';
import { KeptNotes } from './corpus/note/kept-notes.js';
import { SharedNames } from './corpus/files/shared-names.js';
import { configuredLlm } from './llm/require.js';
import { configuredEmbedder, embedderChoice } from './llm/embed.js';
import type { Io, RunContext } from './context.js';
import type { CommitPaths, Models, NoteWatch, ResidentState } from './ports.js';
import type { Settings } from './settings.js';

/** The models the call's settings configure: the OpenAI-compatible endpoints, else the built-in embedder. */
export const configuredModels: Models = {
  llm: () => configuredLlm(),
  embedder: () => configuredEmbedder(),
  embedderKey: () => {
    const choice = embedderChoice();
    return choice.kind === 'local' ? `local:${choice.modelDir ?? ''}` : undefined;
  },
};

/** Commits through git, loaded only by a call that commits. */
const gitCommit: CommitPaths = async (...args) => (await import('./adapters/git-commit.js')).commitPaths(...args);

/** What a call brings of its own; the composition root adds the adapters. */
export interface CallOf {
  settings: Settings;
  io: Io;
  clock?: RunContext['clock'];
  resident?: ResidentState;
  audience?: RunContext['audience'];
}

/**
 * A call's context, with every adapter wired in: the note grep (ripgrep), the per-note cache
 * files, the search index's change journal, git commits and the configured models.
 */
export function callContext(call: CallOf): RunContext {
  return { grep: ripgrepNoteGrep, noteCache: noteCacheFile, written: journalWrite, commit: gitCommit, models: configuredModels, ...call };
}

/** How a long-running process keeps its resident state. */
export interface ResidentOptions {
  /**
   * Without a watcher, every note is checked at most this often (0: before every search, as the
   * resident server does, so an answer never misses another host's write).
   */
  networkRescanMs?: number;
  /**
   * Runs `job` in the process's own context, not that of the call that asked for it (see
   * `KeptNotes.warmSoon`); without it nothing is built for the calls to come.
   */
  warmUp?: (job: () => Promise<void>) => void;
}

/** A part of the resident state: its owner's, closed with the process. */
interface Part {
  close(): void;
}

/** The resident state of one process: the watcher, and each owner's part, found by its class. */
class Resident implements ResidentState {
  constructor(
    readonly watch: NoteWatch | undefined,
    private readonly parts: readonly Part[],
  ) {}

  caughtUp(): Promise<void> {
    return this.watch?.caughtUp() ?? Promise.resolve();
  }

  part<T extends object>(kind: abstract new (...args: never[]) => T): T | undefined {
    for (const p of this.parts) if (p instanceof kind) return p;
    return undefined;
  }

  close(): void {
    for (const p of this.parts) p.close();
    this.watch?.close();
  }
}

/**
 * The resident state of a long-running process serving `root`: a watcher of the root when `local`
 * says watching it can see every change (not on a network file system, whose other hosts write
 * unseen), the domain's kept notes (with a watcher only), the search index's open tables and files,
 * and the note names its listings share.
 */
export function residentState(root: string, local: boolean, o: ResidentOptions = {}): ResidentState & { close(): void } {
  const watch = local ? watchRoot(root) : undefined;
  const index = new ResidentIndex(watch, { local, networkRescanMs: o.networkRescanMs });
  const names = new SharedNames();
  return new Resident(watch, watch ? [new KeptNotes(watch, o.warmUp), index, names] : [index, names]);
}
