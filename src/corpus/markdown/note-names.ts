// How a wikilink names a note. Obsidian, zk and Foam write `[[target]]` with a file name, a stem,
// or a title; this corpus also knows the undated slug (`judy` for `20261130-judy.md`). Names are
// compared without regard to case, as those tools do.

/** What a note is named by: its file name, its title, and whether it was replaced. */
export interface Named {
  path: string;
  title: string;
  superseded_by: string | null;
}

/** What a wikilink target names: one note, several (ambiguous), or none. */
export interface WikiResolution<N extends Named = Named> {
  note?: N;
  ambiguous?: N[];
}

const UNDATED = /^\d{8}-(.+)$/;

/** Printable ASCII words with single spaces between them: nothing to normalise but case. */
const PLAIN = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/** A title or name as wikilinks compare it: case and runs of spaces do not matter. */
export function nameKey(s: string): string {
  // Most names are plain, and a read in a resident process compares every note's names.
  if (PLAIN.test(s)) return s.toLowerCase();
  return s.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The stem without its date: `judy` for `20261130-judy.md`. */
export function undatedSlug(path: string): string | undefined {
  return UNDATED.exec(path.replace(/\.md$/i, ''))?.[1];
}

function add<N>(map: Map<string, N[]>, key: string | undefined, n: N): void {
  if (!key) return;
  const k = nameKey(key);
  const list = map.get(k);
  if (list) list.push(n);
  else map.set(k, [n]);
}

/** Several notes share a name: the current one (not superseded) when it is the only one. */
function pick<N extends Named>(notes: N[] | undefined): WikiResolution<N> | undefined {
  if (!notes?.length) return undefined;
  if (notes.length === 1) return { note: notes[0] };
  const current = notes.filter((n) => !n.superseded_by);
  return current.length === 1 ? { note: current[0] } : { ambiguous: notes };
}

/**
 * The note an undated slug names among those bearing it: the newest current one (latest file name).
 * Two hosts may each write the slug on another day; once their histories are merged the slug
 * keeps naming one note, as a ref does (docs/refs.md).
 */
export function newestCurrent<N extends Named>(notes: readonly N[]): N | undefined {
  let newest: N | undefined;
  for (const n of notes) if (!n.superseded_by && (!newest || n.path > newest.path)) newest = n;
  return newest;
}

function pickUndated<N extends Named>(notes: N[] | undefined): WikiResolution<N> | undefined {
  if (!notes?.length) return undefined;
  if (notes.length === 1) return { note: notes[0] };
  const note = newestCurrent(notes);
  return note ? { note } : { ambiguous: notes };
}

/**
 * How a wikilink to `to` is written in the style of `written` without knowing the other notes: a
 * file name stays a file name; anything else becomes the stem, which names `to` alone.
 */
export function wikiNameByStyle(to: Named, written: string): string {
  return /\.md$/i.test(written) ? to.path : to.path.replace(/\.md$/i, '');
}

/** Every name a wikilink may give a note (file name, stem, undated slug, title), as names compare. */
export function wikiNamesOf(n: { path: string; title?: string }): string[] {
  return [n.path, n.path.replace(/\.md$/i, ''), undatedSlug(n.path), n.title].filter((x): x is string => Boolean(x)).map(nameKey);
}

/** The notes of a folder by every name a wikilink may give them. */
export class NoteNames<N extends Named = Named> {
  private readonly byFile = new Map<string, N[]>();
  private readonly byTitle = new Map<string, N[]>();
  private readonly byUndated = new Map<string, N[]>();

  constructor(notes: Iterable<N>) {
    for (const n of notes) {
      add(this.byFile, n.path, n);
      add(this.byFile, n.path.replace(/\.md$/i, ''), n);
      add(this.byTitle, n.title, n);
      add(this.byUndated, undatedSlug(n.path), n);
    }
  }

  /**
   * File name or stem first, then title, then undated slug; the first kind of name that matches
   * decides, except that a title several notes share gives way to the undated slug when that names
   * one note (`[[Judy]]` names what the ref `Judy` names: the newest current `…-judy.md`).
   */
  resolve(target: string): WikiResolution<N> {
    const k = nameKey(target);
    if (!k) return {};
    const file = pick(this.byFile.get(k));
    if (file) return file;
    const title = pick(this.byTitle.get(k));
    if (title?.note) return title;
    const undated = pickUndated(this.byUndated.get(k));
    return (undated?.note ? undated : (title ?? undated)) ?? {};
  }

  /**
   * How a wikilink to `to` is best written in the style of `written` (the target it had): a file
   * name stays a file name, a stem a stem; a title or slug becomes `to`'s title or slug when that
   * names `to` alone, else its stem.
   */
  nameFor(to: Named, written: string): string {
    const stem = to.path.replace(/\.md$/i, '');
    if (/\.md$/i.test(written)) return to.path;
    if (UNDATED.test(written)) return stem;
    const title = to.title.replace(/\s+/g, ' ').trim();
    const slug = undatedSlug(to.path);
    const names = (name: string | undefined) => Boolean(name) && !/[[\]|#^]/.test(name!) && this.resolve(name!).note === to;
    const titleLike = /[A-Z\s]/.test(written);
    if (titleLike && names(title)) return title;
    if (names(slug)) return slug!;
    if (names(title)) return title;
    return stem;
  }
}
