// The ports a call uses what lies outside the domain through, handed to it in its context
// (src/context.ts); adapters implement them, and this module imports none.

/**
 * The port through which the domain finds note files by their text without reading every file
 * (ripgrep, in src/adapters/ripgrep.ts). It is handed to a call in its context; the domain never
 * imports it.
 */
export interface NoteGrep {
  /**
   * The note files of the root (top-level names) with a line matching any of `patterns`
   * (case-insensitive; literal with `fixed`, else regular expressions), or undefined when the
   * search could not run.
   */
  filesMatching(root: string, patterns: string[], o: { fixed: boolean }): string[] | undefined;
}

/**
 * Where the domain may keep a per-note cache named `name` for a corpus on this host (a file in the
 * search index's folder, src/search/location.ts): derived data, rebuilt from the notes when
 * missing. Without it, whole-corpus commands read every note.
 */
export type NoteCacheFile = (root: string, name: string) => string;

/**
 * What a long-running process (a resident server, an MCP session on stdio) keeps of the search index between calls. Only the
 * search code knows what is inside (`WarmIndex` in src/search/warm.ts); to the context it is opaque.
 */
export interface WarmIndexPort {
  readonly kind: 'warm-index';
  /** Its watcher of the root, as the domain's per-note caches use it (absent without one). */
  readonly notes?: NoteWatch;
  /**
   * Resolves once the watcher has heard of every change made before (see `RootWatch.sync`): the
   * process that keeps the warm index calls it once as each call begins, for all its lookups.
   */
  sync(): Promise<void>;
}

/** The time now in milliseconds since the epoch, as the call sees it (see `now` in src/context.ts). */
export type Clock = () => number;

/**
 * What a long-running process's watcher of the corpus root saw (src/search/warm.ts), for the
 * domain's per-note caches: it keeps their answers in memory between calls and reads again only
 * the notes the watcher named.
 */
export interface NoteWatch {
  /**
   * The note names changed since the last take under `key` (symlinked notes always among them),
   * and whether they are all that changed: false on the first take, or once events may have been
   * lost; the caller then checks every note.
   */
  take(key: string): { names: Set<string>; complete: boolean };
  /** What a consumer keeps between calls, under its key (the process's, not one call's). */
  readonly kept: Map<string, unknown>;
  /**
   * Have `build` keep, under `key`, what a call could have used had it been kept: run between
   * calls in the process's own context, once per key at a time, and stopped when the process
   * closes. A process that builds nothing for calls to come leaves it out.
   */
  warmSoon?(key: string, build: (signal: AbortSignal) => Promise<void>): void;
}
