import { AsyncLocalStorage } from 'node:async_hooks';
import type { NoteGrep } from './corpus/ports.js';
import { Settings } from './settings.js';

/** Where a call's output goes and where its input comes from. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The text piped in, or undefined when there is none (a terminal, /dev/null, or no stdin at all). */
  stdin(): string | undefined;
  /** The working directory the call runs in (root discovery starts there). */
  cwd(): string;
}

/** What one call of the library runs with: its settings and its input and output. */
export interface RunContext {
  settings: Settings;
  io: Io;
  /** Finds note files by their text; without it the domain reads every note (see src/corpus/grep.ts). */
  grep?: NoteGrep;
  /**
   * Told of every note file the tool created, appended to or replaced, once the change is on disk
   * (the search index's change journal listens here); without it, derived state finds the change
   * by scanning.
   */
  written?: (file: string) => void;
}

const store = new AsyncLocalStorage<RunContext>();

/**
 * Run `fn` with a context of its own. Every call (a command line, one MCP tool call, a test that
 * runs the CLI in-process) gets its own settings and output, so calls in one process never share
 * state: the context travels with the call, not in a module variable.
 */
export function withContext<T>(ctx: RunContext, fn: () => T): T {
  return store.run(ctx, fn);
}

/** The process's own input and output. */
export const processIo: Io = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  stdin: () => undefined,
  cwd: () => process.cwd(),
};

/** Whether the code runs inside a call that set its own context. */
export function hasContext(): boolean {
  return store.getStore() !== undefined;
}

/** The context of the current call; outside any call, the process's environment and output. */
export function current(): RunContext {
  return store.getStore() ?? { settings: new Settings(process.env), io: processIo };
}

/** Report a note file the current call changed (see `RunContext.written`). */
export function reportWritten(file: string): void {
  current().written?.(file);
}

/** The settings in force for the current call. */
export function settings(): Settings {
  return current().settings;
}
