import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock, CommitPaths, Models, NoteCacheFile, NoteGrep, ResidentState } from './ports.js';
import { ZkError } from './errors.js';
import type { Settings } from './settings.js';

/** Where a call's output goes and where its input comes from. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The text piped in, or undefined when there is none (a terminal, /dev/null, or no stdin at all). */
  stdin(): string | undefined;
  /** The working directory the call runs in (root discovery starts there). */
  cwd(): string;
}

/** What a write did to one file: the corpus reports these; it never knows who listens. */
export interface WrittenFile {
  /** Absolute path of the file. */
  path: string;
  what: 'created' | 'changed' | 'appended' | 'archived';
  /** For `archived`: where the file went (absolute). */
  to?: string;
  /** For `appended`, when the writer says: the text it appended. */
  text?: string;
}

/** Collects the files one call wrote (so a commit can name exactly those). */
export interface ChangeRecorder {
  record(change: WrittenFile): void;
}

/**
 * What one call remembers while it runs (the warnings it gave, where an index lives), so it works
 * a thing out or says a thing once. A context derived from the call's (`{ ...ctx, … }`) shares it;
 * a new call gets a new one (`newCall`).
 */
export class CallMemo {
  private readonly values = new Map<string, unknown>();

  /** What is kept under `key`, made by `make` the first time it is asked for in this call. */
  get<T>(key: string, make: () => T): T {
    if (!this.values.has(key)) this.values.set(key, make());
    return this.values.get(key) as T;
  }
}

/** What one call of the library runs with: its settings and its input and output. */
export interface RunContext {
  /** What the call remembers while it runs; given to a call by `withContext` when it has none. */
  memo?: CallMemo;
  /** The clock claims and leases are judged by (default: the system's). */
  clock?: Clock;
  settings: Settings;
  io: Io;
  /** Finds note files by their text; without it the domain reads every note (see src/corpus/graph/grep.ts). */
  grep?: NoteGrep;
  /** Where the note metadata cache of a corpus is kept; without it, `list` and `status` read every note. */
  noteCache?: NoteCacheFile;
  /** Told of every file the call's writes touch; absent when nobody needs to know. */
  changes?: ChangeRecorder;
  /**
   * Told of every note file the tool created, appended to or replaced, once the change is on disk
   * (the search index's change journal listens here); without it, derived state finds the change
   * by scanning.
   */
  written?: (file: string) => void;
  /**
   * What a long-running process (the resident server, an MCP session) keeps between calls; absent,
   * every search opens the index and checks for changes as a fresh process does.
   */
  resident?: ResidentState;
  /** Makes the commits of `--commit` (ZK_MEMORY_GIT_COMMIT); absent, a write asked to commit is not committed, with a warning. */
  commit?: CommitPaths;
  /** The LLM and the embedder the call's settings configure; absent, the call has none. */
  models?: Models;
  /** Who reads the answers (src/hints.ts): an MCP session says `mcp`; absent, the command line. */
  audience?: 'cli' | 'mcp';
}

const store = new AsyncLocalStorage<RunContext>();

/**
 * Run `fn` with a context of its own. Every call (a command line, one MCP tool call, a test that
 * runs the CLI in-process) gets its own settings and output, so calls in one process never share
 * state: the context travels with the call, not in a module variable.
 */
export function withContext<T>(ctx: RunContext, fn: () => T): T {
  return store.run(ctx.memo ? ctx : { ...ctx, memo: new CallMemo() }, fn);
}

/** A context for a new call made with what `ctx` holds, remembering nothing of `ctx`'s calls. */
export function newCall(ctx: RunContext): RunContext {
  return { ...ctx, memo: new CallMemo() };
}

/** What the current call remembers (see CallMemo): outside any call, nothing is remembered. */
export function callMemo(): CallMemo {
  return store.getStore()?.memo ?? new CallMemo();
}

/** The process's own input and output. */
export const processIo: Io = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  stdin: () => undefined,
  cwd: () => process.cwd(),
};

/**
 * The time now, in milliseconds, as the current call sees it: the context's clock when it has one
 * (a test that would otherwise sleep until a claim or a lease runs out), else the system's.
 */
export function now(): number {
  return store.getStore()?.clock?.() ?? Date.now();
}

/** Whether the code runs inside a call that set its own context. */
export function hasContext(): boolean {
  return store.getStore() !== undefined;
}

/**
 * The context of the current call. Outside any call it fails loudly: library code runs in a call
 * whose context the composition root (src/compose.ts) built, with its ports; a context made up here
 * would have none, and the code would quietly work without them.
 */
export function current(): RunContext {
  const ctx = store.getStore();
  if (!ctx) throw new ZkError('internal', 'library code ran outside a call: run it through the package entry (src/index.ts) or withContext');
  return ctx;
}

/** The settings in force for the current call. */
export function settings(): Settings {
  return current().settings;
}

/** Report a file the current call wrote (a no-op unless the call collects its changes). */
export function recordChange(change: WrittenFile): void {
  const ctx = current();
  ctx.changes?.record(change);
  // Derived state (the search index's change journal) hears of every note file written.
  ctx.written?.(change.path);
}
