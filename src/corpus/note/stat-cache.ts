import fs from 'node:fs';
import path from 'node:path';
import { current, now } from '../../context.js';
import { stampOf, stampTrusted, type FileStamp } from '../files/file-stamp.js';
import { readNoteFile, type Note } from './notes.js';
import { isNoteFile, listNoteFiles } from '../files/note-files.js';
import { keptNotes, type KeptNotes } from './kept-notes.js';
import { KeptAnswers, type BuiltUpdate } from './kept-answers.js';
import { CacheRows, isNum, writeCacheRows, type CacheRow } from './cache-lines.js';

// What whole-corpus commands need of every note, without reading every note. Each kind of answer
// is kept in a cache file of its own (where the NoteCacheFile port says: beside the index), keyed
// by file name with the stat that was seen; a note whose stat moved is read again. The files stay
// the truth: a missing, damaged or foreign cache is rebuilt from them.

/**
 * One kind of answer kept per note. At 50,000 notes the cache is read whole by every call, so a
 * value is kept in a compact form of its own (`encode`), without what the row's name and stat say.
 */
export interface DerivedKind<T> {
  /** The cache file's name. */
  file: string;
  /** Bumped whenever what is kept changes: a cache of another version is rebuilt. */
  version: number;
  /** `seen`: the file's stamp, taken before it was read. */
  derive(note: Note, seen: FileStamp): T;
  encode(value: T): unknown;
  /**
   * The value back from its kept form, or undefined when that is not what `encode` gives.
   * `shared`: for a long-running process to keep, with the lists and records most notes have
   * alike shared between them (see `lean`); else every part its own, for a caller to change.
   */
  decode(kept: unknown, name: string, seen: FileStamp, shared: boolean): T | undefined;
}

// What a value read back from a cache may be: a `decode` checks every field with these.
export const isStr = (v: unknown): v is string => typeof v === 'string';
export const isStrs = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
export const isStrOrNull = (v: unknown): v is string | null => v === null || isStr(v);
export { isNum };

const NONE: readonly never[] = Object.freeze([]);

/**
 * A decoded list, when `shared`, with every empty one the same frozen list: a resident process
 * keeps several lists per note, mostly empty, and each empty list weighs 32 bytes (10 MB at
 * 50,000 notes).
 */
export const lean = <T>(list: T[], shared: boolean): T[] => (shared && !list.length ? (NONE as never[]) : list);

/**
 * A decoded record, when `shared`, as `common` (frozen, shared by every kept value) when it holds
 * the same fields: most notes say nothing of time and have no supersession keys, and each such
 * record weighs about 50 bytes a note.
 */
export function leanRecord<T extends Record<string, unknown>>(record: T, common: Readonly<T>, shared: boolean): T {
  if (!shared) return record;
  for (const key in common) if (record[key] !== common[key]) return record;
  return common as T;
}

function stat(file: string): FileStamp | undefined {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st && stampOf(st);
}

/** Whether a row was kept for the file's stamp as it is now (compared field by field: 50,000 rows a call). */
const rowMatches = (r: CacheRow, st: FileStamp) => r[1] === st.mtimeMs && r[2] === st.ctimeMs && r[3] === st.ino && r[4] === st.size;

/** One note's answer, with the stamp it was derived at and whether it may be kept. */
interface Derived<T> {
  name: string;
  st: FileStamp;
  value: T;
  /** False for a note whose frontmatter is invalid: read (and warned of) every time. */
  keep: boolean;
}

/**
 * Every readable note's answer, in file-name order. In a long-running process whose watcher sees
 * the root (its resident state, src/corpus/note/kept-notes.ts), the answers are kept in memory and only the notes the
 * watcher named since the last call are read again (see `loadWatched`). Otherwise, with a cache
 * file (the context's `noteCache` port), every note file is stated and only those whose stat moved
 * since the cache saw them (or that it saw too close to a change to trust) are read; without one,
 * every note is read. A note whose frontmatter is invalid is never cached, so its warning shows
 * every time, as it does when the note is read.
 */
export function loadDerived<T>(root: string, kind: DerivedKind<T>): T[] {
  const watch = keptNotes();
  if (watch) return loadWatched(root, kind, watch);
  return loadStated(root, kind).map((d) => d.value);
}

/**
 * Every readable note's answer when a long-running process keeps them in memory already (see
 * `loadWatched`), else undefined: for a caller with a cheaper way than building them all. A
 * long-running process that does not keep them yet builds them for the calls to come (see
 * `keptOrWarming`).
 */
export function keptDerived<T>(root: string, kind: DerivedKind<T>): T[] | undefined {
  const watch = keptNotes();
  return watch && keptOrWarming(root, kind, watch) ? loadWatched(root, kind, watch) : undefined;
}

export type { BuiltUpdate };

/** A note's kept answer by its file name (none: no such note). */
export type AnswerOf<T> = (name: string) => T | undefined;

/**
 * What `build` makes of every kept answer (an index of them, say), kept under `name` until a note
 * changes (or, with `update`, brought up to date note by note: a write then costs no rebuild over
 * every note); undefined when no long-running process keeps the answers (yet: see `keptDerived`).
 * A call then pays for a look-up in the index, not for building it over every note. `build` is
 * given a look-up of a note's answer by file name too: an index keeps no map of its own for that
 * (a map of every name weighs some 40 MB at 1,000,000 notes).
 */
export function keptBuilt<T, R>(
  root: string,
  kind: DerivedKind<T>,
  name: string,
  build: (values: readonly T[], answer: AnswerOf<T>) => R,
  update?: BuiltUpdate<T, R>,
): R | undefined {
  const watch = keptNotes();
  if (!watch || !keptOrWarming(root, kind, watch)) return undefined;
  const kept = watchedAnswers(root, kind, watch);
  let entry = kept.built.get(name);
  if (!entry) {
    entry = { value: build(kept.values(), (name) => kept.answer(name)), update: update as BuiltUpdate<T, unknown> | undefined };
    kept.built.set(name, entry);
  }
  return entry.value as R;
}

/** Where a long-running process keeps one kind of answer for one root. */
const keptKey = (root: string, kind: DerivedKind<unknown>) => `${kind.file}\0${kind.version}\0${root}`;

/** What the answers of one note hold alike, whatever their kind. */
interface NoteStrings {
  uuid: string;
  title: string;
}

const holdsStrings = (v: unknown): v is NoteStrings =>
  typeof v === 'object' && v !== null && typeof (v as NoteStrings).uuid === 'string' && typeof (v as NoteStrings).title === 'string';

/**
 * How an answer about to be kept takes its note's uuid and title from the answer of another kind
 * the process keeps for the note already, when they are the same: each kind reads them from a cache
 * file of its own, and both copies weighed about 100 bytes a note.
 */
function stringSharer(root: string, kind: DerivedKind<unknown>): (name: string, value: unknown) => void {
  const watch = keptNotes();
  const own = keptKey(root, kind);
  const others = watch ? [...watch.kept].filter(([key, kept]) => key !== own && key.endsWith(`\0${root}`) && kept instanceof KeptAnswers) : [];
  const twin = others[0]?.[1] as KeptAnswers<unknown> | undefined;
  if (!twin) return () => undefined;
  return (name, value) => {
    const other = twin.answer(name);
    if (!holdsStrings(value) || !holdsStrings(other) || Object.isFrozen(value)) return;
    if (value.uuid === other.uuid) value.uuid = other.uuid;
    if (value.title === other.title) value.title = other.title;
  };
}

/**
 * The answers kept in memory, brought up to date with the notes the watcher named: a note still
 * there whose stamp did not move is not read. When the watcher cannot say everything that changed
 * (its first call, lost events), every note is checked as without it.
 */
function loadWatched<T>(root: string, kind: DerivedKind<T>, watch: KeptNotes): T[] {
  // A copy: the caller may sort or change it.
  return watchedAnswers(root, kind, watch).values().slice();
}

/** The answers kept in memory for `kind`, brought up to date (see `loadWatched`). */
function watchedAnswers<T>(root: string, kind: DerivedKind<T>, watch: KeptNotes): KeptAnswers<T> {
  const key = keptKey(root, kind);
  const changes = watch.take(key);
  const kept = watch.kept.get(key) as KeptAnswers<T> | undefined;
  if (!kept || !changes.complete) return keepAll(watch, key, loadStated(root, kind, true));
  for (const name of kept.unkept) changes.names.add(name);
  const dir = root.endsWith(path.sep) ? root : root + path.sep;
  const share = stringSharer(root, kind);
  const changed = (was: T | undefined, now: T | undefined) => {
    for (const [key, built] of kept.built) {
      if (built.update) built.update(built.value, was, now);
      else kept.built.delete(key);
    }
  };
  for (const name of changes.names) {
    const st = isNoteFile(root, name) ? stat(dir + name) : undefined;
    if (st && kept.holds(name, st)) continue;
    const note = st && readNoteFile(root, name);
    if (!note) {
      const was = kept.delete(name);
      if (was !== undefined) changed(was, undefined);
      continue;
    }
    const now = answerOf(kind, note, name, st, true);
    share(name, now);
    changed(kept.set(name, st, now, !note.parsed.yamlError), now);
  }
  return kept;
}

/**
 * A note's answer, derived from its text. One `toKeep` by a long-running process goes through its
 * kept form and back, so it holds no slice of the note's text: V8 keeps a whole string alive for
 * any slice of it, which at 50,000 notes kept every note's text in memory for its title and uuid.
 */
function answerOf<T>(kind: DerivedKind<T>, note: Note, name: string, st: FileStamp, toKeep: boolean): T {
  const value = kind.derive(note, st);
  return toKeep ? (kind.decode(JSON.parse(JSON.stringify(kind.encode(value))), name, st, true) ?? value) : value;
}

/** Every readable note's answer, stating every note file (see `loadDerived`). */
function loadStated<T>(root: string, kind: DerivedKind<T>, toKeep = false): Derived<T>[] {
  const steps = statedSteps(root, kind, toKeep);
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** How many notes a slice of `warmDerived` states or reads before other work may run. */
const SLICE = 500;

/**
 * `loadStated`, one slice of notes at a time: it yields between slices, so a long-running
 * process can build its first answers without keeping other calls waiting for all of them.
 * `toKeep`: the answers are for a long-running process to keep (see `answerOf`).
 */
function* statedSteps<T>(root: string, kind: DerivedKind<T>, toKeep: boolean): Generator<void, Derived<T>[]> {
  const cacheFile = current().noteCache?.(root, kind.file);
  if (!cacheFile) return loadAll(root, kind, toKeep);
  const seenAt = now();
  const cache = CacheRows.open(cacheFile, kind.version);
  const out: Derived<T>[] = [];
  // Rows of the cache that did not serve (a note changed, or gone), and notes read to keep: either rewrites it.
  let unused = 0;
  let read = 0;
  let done = 0;
  let complete = false;
  // Note names are plain top-level names: joined without path.join's normalizing, 50,000 times.
  const dir = root.endsWith(path.sep) ? root : root + path.sep;
  const share = toKeep ? stringSharer(root, kind) : () => undefined;
  try {
    for (const name of listNoteFiles(root)) {
      if (++done % SLICE === 0) yield;
      const st = stat(dir + name);
      if (!st) continue; // gone since the listing
      const known = cache?.rowFor(name);
      const kept = known && rowMatches(known, st) && stampTrusted(st, cache!.seenAt) ? kind.decode(known[5], name, st, toKeep) : undefined;
      if (known && kept === undefined) unused++;
      if (kept !== undefined) {
        share(name, kept);
        out.push({ name, st, value: kept, keep: true });
        continue;
      }
      const note = readNoteFile(root, name);
      if (!note) continue;
      const keep = !note.parsed.yamlError;
      const value = answerOf(kind, note, name, st, toKeep);
      share(name, value);
      out.push({ name, st, value, keep });
      if (keep) read++;
    }
    complete = true;
  } finally {
    // Rewritten when a row was added or changed, or one the cache had is gone (a note removed);
    // not after a pass stopped half way (a server closing while it warmed up).
    unused += cache?.close() ?? 0;
    if (complete && (!cache || read || unused)) writeCacheRows(cacheFile, kind.version, seenAt, rowsOf(kind, out));
  }
  return out;
}

/** The cache's rows of the answers (the stat taken before each read: a change during it shows as a moved stat next time). */
function* rowsOf<T>(kind: DerivedKind<T>, answers: readonly Derived<T>[]): Generator<CacheRow> {
  for (const d of answers) if (d.keep) yield [d.name, d.st.mtimeMs, d.st.ctimeMs, d.st.ino, d.st.size, kind.encode(d.value)];
}

/**
 * Whether a long-running process keeps `kind`'s answers. When it does not yet, it is asked to build
 * them between calls: memory goes to what its calls use (a server that only searches keeps none),
 * and the first call that could use them pays what a call of its own would, not the ones after it.
 */
function keptOrWarming<T>(root: string, kind: DerivedKind<T>, watch: KeptNotes): boolean {
  const key = keptKey(root, kind);
  if (watch.kept.has(key)) return true;
  watch.warmSoon(key, (signal) => warmDerived(root, kind, watch, signal));
  return false;
}

/**
 * Build the answers a long-running process keeps (see `loadWatched`) a slice at a time, letting
 * other work run between slices (and stopping when `signal` says so); nothing is done when they
 * are kept already. What changes while it runs is named by the watcher to the next call, as for
 * any kept answers.
 */
async function warmDerived<T>(root: string, kind: DerivedKind<T>, watch: KeptNotes, signal: AbortSignal): Promise<void> {
  const key = keptKey(root, kind);
  if (signal.aborted || watch.kept.has(key)) return;
  // From here on the watcher keeps what changes for the next call; every note is stated after this.
  watch.take(key);
  const steps = statedSteps(root, kind, true);
  let step = steps.next();
  while (!step.done) {
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) {
      steps.return([]);
      return;
    }
    step = steps.next();
  }
  // A call in the meantime may have built them (as `loadWatched` does when none are kept): its answers are newer.
  if (!watch.kept.has(key)) keepAll(watch, key, step.value);
}

/** Keep every note's answer (in file-name order, as stated) for the calls to come. */
function keepAll<T>(watch: KeptNotes, key: string, all: Derived<T>[]): KeptAnswers<T> {
  const kept = new KeptAnswers(all);
  watch.kept.set(key, kept);
  return kept;
}

function loadAll<T>(root: string, kind: DerivedKind<T>, toKeep: boolean): Derived<T>[] {
  const out: Derived<T>[] = [];
  const dir = root.endsWith(path.sep) ? root : root + path.sep;
  for (const name of listNoteFiles(root)) {
    const st = stat(dir + name);
    const n = st && readNoteFile(root, name);
    if (n) out.push({ name, st, value: answerOf(kind, n, name, st, toKeep), keep: !n.parsed.yamlError });
  }
  return out;
}
