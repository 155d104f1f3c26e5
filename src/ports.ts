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

/** The time now in milliseconds since the epoch, as the call sees it (see `now` in src/context.ts). */
export type Clock = () => number;

/** What the watcher of the root saw since it was last asked (see `NoteWatch.take`). */
export interface Watched {
  /**
   * Note file names (top-level `*.md`) created, changed, renamed or removed, and the symlinked
   * notes whose target is no longer the file, or the version, it was when last asked.
   */
  names: Set<string>;
  /**
   * Whether `names` is everything that changed since the watcher started: false once it erred or
   * got an event without a name, until the caller has checked every note file; false too until
   * it has listed the symlinked notes.
   */
  complete: boolean;
  /** When the watcher started (ms since the epoch): a full check begun after it is covered. */
  since: number;
}

/**
 * The port through which a long-running process hears which notes changed between its calls: a
 * watcher of the corpus root (src/adapters/note-watch.ts). The search index takes what it saw;
 * other consumers (the domain's per-note caches) take it under a key of their own.
 */
export interface NoteWatch {
  /** When it started watching (ms since the epoch). */
  readonly since: number;
  /** The names seen since the last `take`, and whether they are all that changed. */
  take(): Watched;
  /**
   * For a consumer other than the index: the names changed since its last take under `key`
   * (symlinked notes always among them), and whether they are all that changed: false on its first
   * take, or once events may have been lost; the caller then checks every note.
   */
  takeFor(key: string): { names: Set<string>; complete: boolean };
  /** Put back what a `take` could not finish with, so the next one has it. */
  giveBack(w: Watched): void;
  /** Resolves once every event of a change made before the call has been delivered. */
  caughtUp(): Promise<void>;
  /** Note files a full check found with more than one name: stated at every `take` from now on. */
  watchHardLinks(names: readonly string[]): void;
  close(): void;
}

/**
 * What a long-running process (the resident server, an MCP session on stdio) keeps between its
 * calls, handed to each call in its context. Each owner keeps its own part (the domain's per-note
 * caches, the search index's open tables and files), found by its class; the composition root
 * (src/compose.ts) makes them. A command line has none: every run starts cold.
 */
export interface ResidentState {
  /** The watcher of the root, when the root is on a local disk and watching could start. */
  readonly watch?: NoteWatch;
  /**
   * Resolves once the watcher has heard of every change made before: the process calls it once
   * as each call begins, for all its lookups.
   */
  caughtUp(): Promise<void>;
  /** The part of the state of class `kind`, when this process keeps one. */
  part<T extends object>(kind: abstract new (...args: never[]) => T): T | undefined;
}

// The models: the LLM the judged writes ask, and the embedder vector search uses (src/llm/).

/** One chat message as the OpenAI-compatible protocol carries it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What one structured call asks for: an object shaped by `schema`, recorded under `name`. */
export interface StructuredCallOptions {
  /** JSON Schema of the answer object. */
  schema: Record<string, unknown>;
  /** Function name the answer is recorded under (e.g. `record_candidates`). */
  name: string;
  /** What the answer records, in a sentence; shown to the model. */
  description?: string;
  /**
   * Told why the call failed when it resolves to null (one line, for traces and messages), and
   * what kind of failure it was (absent means `transport`).
   */
  onFailure?: (reason: string, kind?: LlmFailureKind) => void;
}

/**
 * Why a call gave no answer. `transport`: no usable response at all (timeout, an HTTP error); the
 * adapter has already retried what was worth retrying. `unreachable`: the endpoint cannot be used
 * at all (connection refused, no such host, TLS failed, HTTP 401 or 403), so every further call
 * would fail alike. `unparseable`: the model answered, but with text that holds no JSON object;
 * asking again can help.
 */
export type LlmFailureKind = 'transport' | 'unreachable' | 'unparseable';

/**
 * The model as the library sees it: messages in, one JSON object out. A model failure (dead
 * endpoint, garbage, timeout) never throws: it resolves to null and reports why, and which kind of
 * failure it was, via `onFailure`.
 * The library owns prompts, schemas and validation; implementations only transport.
 */
export interface StructuredLLM {
  (messages: ChatMessage[], options: StructuredCallOptions): Promise<Record<string, unknown> | null>;
  /** The model id, recorded in every trace line of a judged call. */
  readonly model?: string;
}

/** Turns texts into vectors: one per text, in order, all of one dimension. */
export interface Embedder {
  /** The model id; the vector index is pinned to it. */
  readonly model: string;
  /**
   * Embed the texts (each clipped to the embedder's character cap). Throws a ZkError (exit 3):
   * `llm_unreachable` when the endpoint cannot be reached, else `llm_failed` when it fails or
   * answers something unusable.
   * `retries` overrides the configured retries, e.g. 0 for a call that has a fallback.
   */
  embed(texts: string[], opts?: { retries?: number }): Promise<number[][]>;
  /**
   * True for an embedder too slow to catch up on every pending note while a search waits (the
   * built-in one): searches use the vectors there are, and notes are embedded in the background
   * (the resident server) or by `index`. Else the first search embeds what is pending.
   */
  readonly background?: boolean;
}

/**
 * The port through which a call gets the models its settings configure (src/llm/, wired by the
 * composition root, src/compose.ts); a program may hand in its own.
 */
export interface Models {
  /** The chat model the call's settings configure, or undefined when none is. */
  llm(): StructuredLLM | undefined;
  /** The embedder the call's settings choose, or undefined when they choose none. */
  embedder(): Promise<Embedder | undefined>;
  /**
   * For an embedder worth keeping between calls (the built-in one loads a model into memory), the
   * key a resident process keeps it under; else undefined.
   */
  embedderKey(): string | undefined;
}

/** What became of a commit: made (with what the caller should hear of it), or skipped with a one-line reason. */
export type CommitOutcome = { sha: string; message: string; warnings?: string[] } | { skipped: string };

/**
 * The port through which a write is committed to git (src/adapters/git-commit.ts): the files of
 * `dir` at `paths` (relative), with `message`; of the files in `ownLines`, only those lines. Never
 * throws: a commit that cannot be made is skipped, with the reason.
 */
export type CommitPaths = (dir: string, paths: string[], message: string, o?: { ownLines?: Record<string, string> }) => Promise<CommitOutcome>;
