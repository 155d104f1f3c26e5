import type { FileStamp } from '../files/file-stamp.js';
import { isKind, sharedKind } from './kinds.js';
import type { Note, NoteInfo, NoteTimes } from './notes.js';
import { isStr, isStrOrNull, isStrs, keptBuilt, lean, leanRecord, keptDerived, loadDerived, type BuiltUpdate, type DerivedKind } from './stat-cache.js';

// What `list` and `status` need of every note, kept per note in a stat-keyed cache
// (src/corpus/note/stat-cache.ts): only notes that changed are read.

/**
 * A note's public fields and the few the library sorts and links by, without its text; its file's
 * stamp as stated before it was read (the index's freshness check compares it).
 */
export interface NoteMeta extends NoteInfo, FileStamp {
  supersedes: string[];
  times: NoteTimes;
  /** `pinned: true` in its frontmatter: always shown at the start of a session (`context`). */
  pinned: boolean;
}

/** Whether a note's frontmatter pins it (`pinned: true`, nothing else). */
export const isPinned = (n: Pick<Note, 'parsed'>): boolean => n.parsed.frontmatter.pinned === true;

/** The fields of a note read from its file (nothing of the text is kept), with the file's stamp. */
export function noteMeta(n: NoteInfo & Pick<Note, 'supersedes' | 'times'>, seen: FileStamp, pinned: boolean): NoteMeta {
  // Every field written out, not `...noteInfo(n)`: made once per note on every whole-corpus read, a
  // spread object took V8's slow path (status at 1,000 notes: 10% slower, twice the garbage).
  return {
    uuid: n.uuid,
    slug: n.slug,
    path: n.path,
    title: n.title,
    date: n.date,
    kind: n.kind,
    author: n.author,
    superseded_by: n.superseded_by,
    supersedes: n.supersedes,
    times: n.times,
    pinned,
    mtimeMs: seen.mtimeMs,
    ctimeMs: seen.ctimeMs,
    ino: seen.ino,
    size: seen.size,
  };
}

type KeptTimes = [superseded_at: string | null, archived_at: string | null, valid_from: string | null, valid_until: string | null];
type Kept = [
  uuid: string,
  title: string,
  date: string,
  kind: string | null,
  author: string | null,
  superseded_by: string | null,
  supersedes: string[],
  times?: KeptTimes | null,
  pinned?: 1,
];

const NO_TIMES: Readonly<NoteTimes> = Object.freeze({ superseded_at: null, archived_at: null, valid_from: null, valid_until: null });

/** Kept as a row of its fields: the name gives the slug and path, the stat the size and mtime. */
const META: DerivedKind<NoteMeta> = {
  file: 'notes-meta.jsonl',
  // 5: a date that cannot be read gives way to the file name's; a note says whether it is pinned.
  version: 5,
  derive: (note, seen) => noteMeta(note, seen, isPinned(note)),
  // Most notes say nothing of time and are not pinned: their row leaves those fields out.
  encode: (m): Kept => {
    const t = m.times;
    const row: Kept = [m.uuid, m.title, m.date, m.kind, m.author, m.superseded_by, m.supersedes];
    const timed = Boolean(t.superseded_at || t.archived_at || t.valid_from || t.valid_until);
    if (timed || m.pinned) row.push(timed ? [t.superseded_at, t.archived_at, t.valid_from, t.valid_until] : null);
    if (m.pinned) row.push(1);
    return row;
  },
  decode(k, name, seen, shared) {
    if (!Array.isArray(k) || k.length < 7 || k.length > 9) return undefined;
    const [uuid, title, date, kind, author, superseded_by, supersedes, keptTimes, pinned] = k as Kept;
    const kept = keptTimes ?? [null, null, null, null];
    if (
      !isStr(uuid) ||
      !isStr(title) ||
      !isStr(date) ||
      !(kind === null || isKind(kind)) ||
      !isStrOrNull(author) ||
      !isStrOrNull(superseded_by) ||
      !isStrs(supersedes) ||
      !Array.isArray(kept) ||
      kept.length !== 4 ||
      !kept.every(isStrOrNull) ||
      (pinned !== undefined && pinned !== 1)
    )
      return undefined;
    const [superseded_at, archived_at, valid_from, valid_until] = kept;
    const times = leanRecord({ superseded_at, archived_at, valid_from, valid_until }, NO_TIMES, shared);
    return noteMeta(
      {
        uuid,
        slug: name.replace(/\.md$/, ''),
        path: name,
        title,
        date,
        kind: kind && sharedKind(kind),
        author,
        superseded_by,
        supersedes: lean(supersedes, shared),
        times,
      },
      seen,
      pinned === 1,
    );
  },
};

/** Every readable note of the corpus, in file-name order, as `NoteMeta` (see `loadDerived`). */
export function loadNoteMetas(root: string): NoteMeta[] {
  return loadDerived(root, META);
}

/** Every readable note's metadata when a resident process keeps it warm, else undefined. */
export function keptNoteMetas(root: string): NoteMeta[] | undefined {
  return keptDerived(root, META);
}

/** What `build` makes of every note's metadata, kept until a note changes, when a resident process keeps it; else undefined (see `keptBuilt`). */
export function keptMetasBuilt<R>(root: string, name: string, build: (metas: readonly NoteMeta[]) => R, update?: BuiltUpdate<NoteMeta, R>): R | undefined {
  return keptBuilt(root, META, name, build, update);
}
