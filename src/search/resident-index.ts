import { current } from '../context.js';
import type { KnownManifest } from './manifest.js';
import type { VectorState } from './vector-state.js';
import type { Table } from './lance.js';
import type { Embedder } from '../ports.js';
import type { NoteWatch } from '../ports.js';

/**
 * On a network file system the corpus's other hosts write where no watcher on this host sees:
 * the server checks every note file at most this often (the journal and the folder's metadata
 * cover the tool's own writes and notes added or removed in between).
 */
export const NETWORK_RESCAN_MS = 2000;
/**
 * Linux drops inotify events when its queue overflows and libuv does not pass the overflow on; a
 * full check this often bounds how long such a loss can last.
 */
export const WATCHED_RESCAN_MS = 60_000;

/**
 * A file's parsed content, kept while the file is the version it was read from or written as (its
 * identity, see `fileIdentity` in src/search/index-record.ts): another process's write replaces the file,
 * so the next load reads it again.
 */
export class KeptFile<T> {
  private kept?: { id: string; value: T };

  /** The value kept for the file's identity `id`, else what `read` gives, kept for `id`. */
  load(id: string | undefined, read: () => T | undefined): T | undefined {
    if (id !== undefined && this.kept?.id === id) return this.kept.value;
    const value = read();
    this.keep(id, value);
    return value;
  }

  /** Keep `value` as the file's content at `id` (nothing when either is unknown). */
  keep(id: string | undefined, value: T | undefined): void {
    this.kept = id !== undefined && value !== undefined ? { id, value } : undefined;
  }
}

/**
 * The stamp that names a new version of a search table (`refreshedAt`, `builtAt`): the system's
 * clock, not the call's `now()`. Every process compares it (see `TableCache`), and it must move at
 * every change, even under a test's fixed clock; LanceDB dates its versions by the same clock.
 */
export function versionStamp(): string {
  return new Date().toISOString();
}

/**
 * LanceDB tables by index folder and table name, each kept with the manifest's `refreshedAt` it
 * was opened at. Every change to a table (a refresh, a compaction, a rebuild from nothing, by any
 * process) writes a new `refreshedAt`, so a table is reused only while it is the one the index
 * describes; otherwise it is opened afresh, on a new connection (a rebuilt table reuses version
 * numbers, and a connection's caches must not mix the two).
 */
export class TableCache {
  private readonly open = new Map<string, { refreshedAt: string; table: Table }>();

  get(dir: string, name: string, refreshedAt: string): Table | undefined {
    const hit = this.open.get(`${dir}\0${name}`);
    return hit?.refreshedAt === refreshedAt ? hit.table : undefined;
  }

  set(dir: string, name: string, refreshedAt: string, table: Table): void {
    // A table replaced here is not closed: a call still running may be querying it.
    this.open.set(`${dir}\0${name}`, { refreshedAt, table });
  }

  close(): void {
    for (const { table } of this.open.values()) table.close();
    this.open.clear();
  }
}

/**
 * The search index's part of a long-running process's resident state (src/ports.ts
 * `ResidentState`): what it keeps of the index between calls, handed to each call through its
 * context. A command line has none: every run starts cold and checks as `planRefresh`
 * (src/search/changes.ts) says.
 */
export class ResidentIndex {
  /** Open tables, reused while the index has not been refreshed since they were opened. */
  readonly tables = new TableCache();
  /** The manifest last read or written, reused while its file is unchanged (src/search/manifest.ts). */
  readonly manifest = new KeptFile<KnownManifest>();
  /** The vector state, the same way (src/search/vector.ts). */
  readonly vectors = new KeptFile<VectorState>();
  /** The built-in embedders made so far, by model folder: each loads its model once (src/search/embedder.ts). */
  readonly embedders = new Map<string, Embedder>();
  /**
   * How fresh the index was found against the notes' stamps as kept until a note changes (by
   * that list, see `scanIndex` in src/search/index-scan.ts), with the manifest it was found against.
   */
  readonly scans = new WeakMap<object, { manifestId: string; scan: unknown }>();
  /** Without a healthy watcher, how old (ms) the last check of every note file may be. */
  readonly unwatchedRescanMs: number;
  /** With one, the same bound: a backstop for events the kernel dropped without saying so. */
  readonly watchedRescanMs = WATCHED_RESCAN_MS;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly queued = new Map<string, Promise<unknown>>();
  /** When this process last wrote the index, on the monotonic clock (a clock set back must not delay compaction). */
  private lastWrite = performance.now();

  /**
   * `watch`: the watcher of the root, when there is one. `local`: whether watching the root can
   * see every change; without it, every note is checked at most every `networkRescanMs` (0:
   * before every search, as the resident server does, so an answer never misses another host's write).
   */
  constructor(
    readonly watch: NoteWatch | undefined,
    o: { local: boolean; networkRescanMs?: number },
  ) {
    this.unwatchedRescanMs = o.local ? 0 : (o.networkRescanMs ?? NETWORK_RESCAN_MS);
  }

  /** Say that this process just wrote the search index (a refresh or a compaction). */
  wroteIndex(): void {
    this.lastWrite = performance.now();
  }

  /** How long (ms) since this process last wrote the search index: compacting it waits for writes to pause. */
  indexQuietMs(): number {
    return performance.now() - this.lastWrite;
  }

  /**
   * Run index refreshes one at a time. A refresh takes the watcher's names: a second one running
   * meanwhile would find nothing to do and answer before the first has applied what it took.
   */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * `serial`, shared: callers that ask for the refresh `key` while one is queued and not yet begun
   * get that one's answer. It begins after every one of them asked, so it sees every change
   * made before any of them (and a burst of searches behind a slow refresh costs one more, not one each).
   */
  sharedSerial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const waiting = this.queued.get(key) as Promise<T> | undefined;
    if (waiting) return waiting;
    const run = this.serial(() => {
      this.queued.delete(key); // who asks from now on needs a refresh that begins after it asked
      return fn();
    });
    this.queued.set(key, run);
    return run;
  }

  close(): void {
    this.tables.close();
  }
}

/** The current call's resident index, when a long-running process keeps one. */
export function residentIndex(): ResidentIndex | undefined {
  return current().resident?.part(ResidentIndex);
}
