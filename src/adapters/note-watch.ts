import fs from 'node:fs';
import path from 'node:path';
import { now } from '../context.js';
import { isNoteName } from '../corpus/files/note-files.js';
import type { NoteWatch, Watched } from '../ports.js';

// The watcher of a corpus root, behind the `NoteWatch` port (src/ports.ts): `fs.watch` on the
// root, cookies to know when every earlier event has come, and a stat of every symlinked note.

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

/** Whether a file name is one of the watcher's cookies (see `RootWatch.caughtUp`), never a note. */
export function isCookieName(name: string): boolean {
  return name.startsWith(COOKIE_PREFIX);
}
const COOKIE_PREFIX = '.zk-cookie-';

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
export class RootWatch implements NoteWatch {
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
  /** Cookies written and not yet seen, by name (see `caughtUp`). */
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
   * made before a `caughtUp` that resolved are among them.
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
    // Counted from the last take of anyone: a process that only writes would otherwise reach the
    // bound after some thousands of writes and check every note on every call from then on.
    this.events = 0;
    // Symlinked notes are listed once for every consumer: a process that only writes takes no
    // index's `take`, and its caches would otherwise check every note on every call.
    if (this.alive && !this.listed && this.listing === undefined) this.listLinks();
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
  caughtUp(): Promise<void> {
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
   * known from the next full check on (at most `WATCHED_RESCAN_MS` later, src/search/resident-index.ts); one made in the root has
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
    fs.promises.readdir(this.root, { withFileTypes: true }).then(
      (entries) => {
        if (run !== this.listing || !this.alive) return;
        for (const d of entries) {
          if (!d.isSymbolicLink() || !isNoteName(d.name) || this.links.has(d.name)) continue;
          if (this.relink(d.name)) this.names.add(d.name);
        }
        this.listed = true;
        this.listing = undefined;
      },
      () => {
        if (run === this.listing) this.listing = undefined; // the next take lists again
      },
    );
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

/** A watcher of `root`, or undefined when watching cannot start (inotify limits, say): every search then checks every note. */
export function watchRoot(root: string): NoteWatch | undefined {
  try {
    return new RootWatch(root);
  } catch {
    return undefined;
  }
}
