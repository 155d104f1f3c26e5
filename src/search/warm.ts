import fs from 'node:fs';
import path from 'node:path';
import { current, now } from '../context.js';
import { isNoteName } from '../corpus/files/note-files.js';
import type { KnownManifest } from './manifest.js';
import type { VectorState } from './vector-state.js';
import type { Table } from './lance.js';
import type { Embedder } from '../llm/embed.js';
import type { NoteWatch, WarmIndexPort } from '../ports.js';

/**
 * What a long-running process (the MCP server) keeps of the search index between calls, handed to
 * each call through its context (src/context.ts). A command line has none: every run starts cold
 * and checks as `planRefresh` (src/search/changes.ts) says.
 */
export interface WarmIndex extends WarmIndexPort {
  /** The watcher as the domain's per-note caches see it, when there is one (see NoteWatch). */
  readonly notes?: NoteWatch;
  /** Open tables, reused while the index has not been refreshed since they were opened. */
  readonly tables: TableCache;
  /** The manifest last read or written, reused while its file is unchanged (src/search/manifest.ts). */
  readonly manifest: KeptFile<KnownManifest>;
  /** The vector state, the same way (src/search/vector.ts). */
  readonly vectors: KeptFile<VectorState>;
  /** The built-in embedders made so far, by model folder: each loads its model once (src/search/embedder.ts). */
  readonly embedders: Map<string, Embedder>;
  /**
   * How fresh the index was found against the notes' stamps as kept until a note changes (by
   * that list, see `scanIndex` in src/search/changes.ts), with the manifest it was found against.
   */
  readonly scans: WeakMap<object, { manifestId: string; scan: unknown }>;
  /** The watcher of the corpus root, when the root is on a local disk and watching could start. */
  readonly watch?: RootWatch;
  /** Say that this process just wrote the search index (a refresh or a compaction). */
  wroteIndex(): void;
  /** How long (ms) since this process last wrote the search index: compacting it waits for writes to pause. */
  indexQuietMs(): number;
  /** Without a healthy watcher, how old (ms) the last check of every note file may be. */
  readonly unwatchedRescanMs: number;
  /** With one, the same bound: a backstop for events the kernel dropped without saying so. */
  readonly watchedRescanMs: number;
  /**
   * Run index refreshes one at a time. A refresh takes the watcher's names: a second one running
   * meanwhile would find nothing to do and answer before the first has applied what it took.
   */
  serial<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * `serial`, shared: callers that ask for the refresh `key` while one is queued and not yet begun
   * get that one's answer. It begins after every one of them asked, so it sees every change
   * made before any of them (and a burst of searches behind a slow refresh costs one more, not one each).
   */
  sharedSerial<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/** The current call's warm index, when a long-running process handed it one (see `warmIndex`). */
export function callWarmIndex(): WarmIndex | undefined {
  // Only `warmIndex` below makes one: the context carries it without knowing what it is.
  return current().warm as WarmIndex | undefined;
}

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
/** How long a cookie's event may take to come back before the watcher is taken to have lost events. */
export const COOKIE_WAIT_MS = 1000;

/** The kernel's inotify queue length (events beyond it are dropped), or Linux's default. */
function inotifyQueueLength(): number {
  try {
    const n = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : 16384;
  } catch {
    return 16384;
  }
}

/** Whether a file name is one of the watcher's cookies (see `RootWatch.sync`), never a note. */
export function isCookieName(name: string): boolean {
  return name.startsWith(COOKIE_PREFIX);
}
const COOKIE_PREFIX = '.zk-cookie-';

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

/** What the watcher saw since it was last asked. */
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
 * An `fs.watch` on the corpus root (note files are top-level, so one non-recursive watch sees
 * every one), collecting the names of changed notes until the next search takes them.
 *
 * A note that is a symlink changes with what it leads to, and no event names it then: the event
 * names the target, or nothing at all when a link on the way, outside the root or in a folder
 * below it, is made to lead elsewhere (see `isNoteEntry` in src/corpus/files/note-files.ts for the
 * links that are notes). So each symlinked note's target is stated at every `take`, and the note
 * is named when it moved. Which notes are symlinks is listed once, in the background (the root
 * may hold many thousand notes), then kept by the events on their own names.
 */
export class RootWatch {
  private names = new Set<string>();
  /** False when a change may have gone unnamed: the next caller must check every note. */
  private complete = true;
  /** True when an event was lost: a symlinked note made meanwhile is known to no one. */
  private lost = false;
  private alive = true;
  private readonly watcher: fs.FSWatcher;
  /**
   * The notes that change unseen, each with what a stat through it last showed (`targetState`):
   * the root's symlinked notes, and notes with more than one name (a hard link outside the root is
   * written through with no event here).
   */
  private readonly links = new Map<string, string>();
  /** Whether `links` holds every one: once the latest listing, begun while watching, came back. */
  private listed = false;
  /** The latest listing's number, while it is under way. */
  private listing?: number;
  private listings = 0;
  /** Events since the last `take`, and how many would say the kernel's queue may have overflowed. */
  private events = 0;
  private readonly overflowAt = Math.floor(inotifyQueueLength() / 2);
  /** The other consumers of the events (see `takeFor`), each with what it has not taken yet. */
  private readonly consumers = new Map<string, { names: Set<string>; complete: boolean }>();
  /** Cookies written and not yet seen, by name (see `sync`). */
  private readonly cookies = new Map<string, () => void>();
  private cookieCount = 0;
  readonly since: number;

  constructor(private readonly root: string) {
    this.watcher = fs.watch(root, { persistent: false }, (_event, name) => {
      const file = name?.toString();
      // Linux drops events past its queue's length and libuv says nothing of it: so many events
      // since the last take mean some may be lost (events the kernel merged take no room).
      if (++this.events >= this.overflowAt) this.incomplete();
      if (!file) {
        this.incomplete();
        this.lost = true;
      } else if (isNoteName(file)) {
        this.names.add(file);
        for (const c of this.consumers.values()) c.names.add(file);
      } else if (isCookieName(file)) this.cookies.get(file)?.();
    });
    this.watcher.on('error', () => {
      this.alive = false;
      this.watcher.close();
    });
    // Taken once watching: a check of every note begun later sees what changed before it.
    this.since = now();
    this.listLinks();
  }

  /**
   * The names seen since the last call, and whether they are all that changed. Events the kernel
   * made before a `sync` that resolved are among them.
   */
  take(): Watched {
    const out = { names: this.names, complete: this.complete && this.alive && this.listed, since: this.since };
    this.names = new Set();
    this.complete = true;
    this.events = 0;
    // A watcher that died is not trusted again: its caller checks every note from now on.
    if (!this.alive) return out;
    this.followLinks(out.names);
    if (this.lost || (!this.listed && this.listing === undefined)) this.listLinks();
    this.lost = false;
    return out;
  }

  /** Events may have gone unnamed: every consumer checks every note next time. */
  private incomplete(): void {
    this.complete = false;
    for (const c of this.consumers.values()) c.complete = false;
  }

  /**
   * For a consumer other than the index (a per-note cache): the names changed since its last
   * take, symlinked notes always among them (their targets change unseen), and whether that is
   * all. Its first take is incomplete: what changed before it started watching is not known.
   */
  takeFor(key: string): { names: Set<string>; complete: boolean } {
    const was = this.consumers.get(key);
    this.consumers.set(key, { names: new Set(), complete: true });
    if (!was) return { names: new Set(), complete: false };
    for (const name of this.links.keys()) was.names.add(name);
    return { names: was.names, complete: was.complete && this.alive && this.listed };
  }

  /** Put back what a refresh took and could not finish, so the next one does it. */
  giveBack(w: Watched): void {
    for (const n of w.names) this.names.add(n);
    if (!w.complete) this.complete = false;
  }

  /**
   * Resolve once every event of a change made before this call has been delivered: a cookie file
   * is made and removed in the root, and the watcher waits for its own event, which the kernel
   * queues after those of every earlier change in the folder (as watchman and git's fsmonitor do).
   * A cookie that cannot be written, or whose event does not come back in time, makes the next
   * take incomplete: its caller then checks every note.
   */
  sync(): Promise<void> {
    if (!this.alive) return Promise.resolve();
    const name = `${COOKIE_PREFIX}${process.pid}-${++this.cookieCount}`;
    const file = path.join(this.root, name);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.cookies.delete(name);
        resolve();
      };
      const timer = setTimeout(() => {
        this.incomplete();
        done();
      }, COOKIE_WAIT_MS);
      this.cookies.set(name, done);
      try {
        fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW, 0o600));
        fs.rmSync(file, { force: true });
      } catch {
        this.incomplete(); // a folder we may not write in: the caller checks every note instead
        done();
      }
    });
  }

  close(): void {
    this.alive = false;
    this.watcher.close();
  }

  /** Keep `links` up to date with the names events gave, and add to `names` each link whose target moved. */
  private followLinks(names: Set<string>): void {
    for (const name of names) this.relink(name);
    for (const [name, was] of this.links) {
      if (names.has(name)) continue;
      if (this.targetState(name) === was) continue;
      names.add(name);
      // Looked at again: a file whose other names are gone (a note published through a hard link
      // from a temp file, whose temp name then went) is stated no more.
      this.relink(name);
    }
  }

  /**
   * Note files a full check found with more than one name: from now on each is stated at every
   * `take`. A hard link made outside the root to a note gives no event here, so such a note is
   * known from the next full check on (at most `WATCHED_RESCAN_MS` later); one made in the root has
   * an event of its own. Each is named once at the next take, as its state before is not known.
   */
  watchHardLinks(names: readonly string[]): void {
    for (const name of names) if (!this.links.has(name)) this.links.set(name, '');
  }

  /** Whether `name` is a symlink, or a file of several names, now: kept in `links` with its target's state if so. */
  private relink(name: string): boolean {
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(path.join(this.root, name), { throwIfNoEntry: false });
    } catch {
      st = undefined; // unreadable: whatever it is, the refresh that checks it says so
    }
    if (st?.isSymbolicLink() || (st?.isFile() && st.nlink > 1)) {
      this.links.set(name, this.targetState(name));
      return true;
    }
    this.links.delete(name);
    return false;
  }

  /**
   * List the symlinked notes without holding up the calls meanwhile, which check every note (see
   * `take`). A link listed may be none by the time the listing comes back: each is looked at
   * again, and every change since has an event. One not known before is named once, as what it
   * led to before is not known.
   */
  private listLinks(): void {
    const run = (this.listing = ++this.listings);
    this.listed = false;
    fs.promises.readdir(this.root, { withFileTypes: true }).then((entries) => {
      if (run !== this.listing || !this.alive) return;
      for (const d of entries) {
        if (!d.isSymbolicLink() || !isNoteName(d.name) || this.links.has(d.name)) continue;
        if (this.relink(d.name)) this.names.add(d.name);
      }
      this.listed = true;
      this.listing = undefined;
    }, () => {
      if (run === this.listing) this.listing = undefined; // the next take lists again
    });
  }

  /** What a stat through the link shows of its target: which file, which version; '' when it leads nowhere. */
  private targetState(name: string): string {
    try {
      const st = fs.statSync(path.join(this.root, name), { bigint: true });
      return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    } catch {
      return ''; // dangling, a loop, or gone
    }
  }
}

/** How a long-running process keeps its warm index. */
export interface WarmIndexOptions {
  /**
   * Without a watcher, every note is checked at most this often (0: before every search, as the
   * resident server does, so an answer never misses another host's write).
   */
  networkRescanMs?: number;
  /**
   * Runs `job` in the process's own context, not that of the call that asked for it (see
   * `NoteWatch.warmSoon`); without it nothing is built for the calls to come.
   */
  warmUp?: (job: () => Promise<void>) => void;
}

/**
 * The warm state of the server of `root`; `local` says whether watching the root can see every
 * change (see `WarmIndexOptions` for the rest).
 */
export function warmIndex(root: string, local: boolean, o: WarmIndexOptions = {}): WarmIndex & { close(): void } {
  let watch: RootWatch | undefined;
  if (local) {
    try {
      watch = new RootWatch(root);
    } catch {
      watch = undefined; // no watcher (inotify limits, say): every search checks every note
    }
  }
  const tables = new TableCache();
  const kept = new Map<string, unknown>();
  const closing = new AbortController();
  const warming = new Set<string>();
  const warmSoon = (key: string, build: (signal: AbortSignal) => Promise<void>) => {
    if (!o.warmUp || warming.has(key) || kept.has(key) || closing.signal.aborted) return;
    warming.add(key);
    // Not within the call that asked: it goes on, and the building runs between its steps.
    o.warmUp(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await build(closing.signal).finally(() => warming.delete(key));
    });
  };
  const notes: NoteWatch | undefined = watch && { take: (key) => watch!.takeFor(key), kept, warmSoon };
  const manifest = new KeptFile<KnownManifest>();
  const vectors = new KeptFile<VectorState>();
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };
  const queued = new Map<string, Promise<unknown>>();
  let lastWrite = performance.now();
  return {
    kind: 'warm-index',
    tables, watch, notes, manifest, vectors, scans: new WeakMap(), embedders: new Map(),
    sync: () => watch?.sync() ?? Promise.resolve(),
    wroteIndex: () => void (lastWrite = performance.now()),
    indexQuietMs: () => performance.now() - lastWrite,
    serial,
    sharedSerial<T>(key: string, fn: () => Promise<T>): Promise<T> {
      const waiting = queued.get(key);
      if (waiting) return waiting as Promise<T>;
      const run = serial(() => {
        queued.delete(key); // who asks from now on needs a refresh that begins after it asked
        return fn();
      });
      queued.set(key, run);
      return run;
    },
    unwatchedRescanMs: local ? 0 : (o.networkRescanMs ?? NETWORK_RESCAN_MS),
    watchedRescanMs: WATCHED_RESCAN_MS,
    close() {
      closing.abort();
      watch?.close();
      tables.close();
    },
  };
}
