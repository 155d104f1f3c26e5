import { noteHeadings, titleHeadings, type HeadingLists, type NoteHeadings } from '../markdown/headings.js';
import { isNoteLink, parseBody, parseLinks, type Link } from '../markdown/links.js';
import type { LinkForm } from '../markdown/markdown.js';
import { DATE_KEYS, unreadDates, type DateKey, type Note } from '../note/notes.js';
import {
  isNum,
  isStr,
  isStrOrNull,
  isStrs,
  keptBuilt,
  lean,
  leanRecord,
  loadDerived,
  type AnswerOf,
  type BuiltUpdate,
  type DerivedKind,
} from '../note/stat-cache.js';

/** A link `tend` looks after, with its target exactly as written. */
export type TendedLink = Link & { written: string };
export type { AnswerOf };

/**
 * What checking links needs of one note, without its text: who it is, the links `tend` looks
 * after, the headings links may name, and where its supersession keys stand. One parse of the
 * note gives all of it; a check of an unchanged note reads it from a cache.
 */
export interface NoteFacts {
  path: string;
  uuid: string;
  title: string;
  superseded_by: string | null;
  supersedes: string[];
  /** Links to notes of the root (`name.md` or a wikilink, maybe `#heading`) and to own headings. */
  links: TendedLink[];
  /** The note's headings as links name them (see NoteHeadings), as lists: read with `headingLists`. */
  headings: HeadingLists | TitleOnly;
  /** The 1-based lines of the `supersedes` and `superseded_by` keys (1 when absent). */
  lines: { supersedes: number; superseded_by: number };
  /**
   * When what it says holds true, as written (docs/format.md#time), for checking it is possible:
   * read with `noteValidity`. A resident process keeps the date alone of a note without validity
   * keys (most notes): as an object of its own, it weighed about 60 bytes a note.
   */
  validity: Validity | string;
  /** The date keys whose value is no day or moment, as written, with the key's line: read as absent. */
  unreadDates: UnreadDate[];
}

export interface UnreadDate {
  key: DateKey;
  value: string;
  line: number;
}

/** A note's date and validity keys as written (null when absent), with the line of each key (1 when absent). */
export interface Validity {
  date: string;
  valid_from: string | null;
  valid_until: string | null;
  lines: { valid_from: number; valid_until: number };
}

/** A note's date and validity keys as written. */
export function noteValidity(f: Pick<NoteFacts, 'validity'>): Validity {
  return typeof f.validity === 'string' ? { date: f.validity, valid_from: null, valid_until: null, lines: FIRST_VALIDITY_LINES } : f.validity;
}

/** The line of a frontmatter key in a note. */
function keyLine(note: Note, key: string): number {
  const at = note.raw.slice(note.parsed.yamlStart, note.parsed.yamlEnd).search(new RegExp(`^${key}[ \\t]*:`, 'm'));
  return note.raw.slice(0, at < 0 ? 0 : note.parsed.yamlStart + at).split('\n').length;
}

const lists = (h: NoteHeadings): HeadingLists => ({ slugs: [...h.slugs], texts: [...h.texts], blocks: [...h.blocks] });

/**
 * The headings of a note whose only heading is its title, as a resident process keeps them: one
 * value shared by all such notes (most notes), the lists made again from the title when asked.
 * Kept note by note, the lists and their two strings weighed about 250 bytes a note.
 */
interface TitleOnly {
  readonly titleOnly: true;
}
const TITLE_ONLY: TitleOnly = Object.freeze({ titleOnly: true });

/** A note's headings as lists. */
export function headingLists(f: Pick<NoteFacts, 'title' | 'headings'>): HeadingLists {
  return 'titleOnly' in f.headings ? titleHeadings(f.title) : f.headings;
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Kept headings: `TITLE_ONLY` when they are the title's alone and the process keeps them (`shared`). */
function keptHeadings(title: string, h: HeadingLists, shared: boolean): HeadingLists | TitleOnly {
  if (!shared) return h;
  const own = titleHeadings(title);
  if (sameList(h.slugs, own.slugs) && sameList(h.texts, own.texts) && sameList(h.blocks, own.blocks)) return TITLE_ONLY;
  return { slugs: lean(h.slugs, shared), texts: lean(h.texts, shared), blocks: lean(h.blocks, shared) };
}

/** The facts of a note, from one parse of its body. */
export function noteFacts(note: Note): NoteFacts {
  const doc = parseBody(note.raw, note.parsed.bodyOffset);
  const links = parseLinks(note.raw, { from: note.parsed.bodyOffset, doc })
    .filter((l) => isNoteLink(l) || (l.target === '' && l.fragment !== undefined))
    .map((l) => ({ ...l, written: note.raw.slice(l.targetStart, l.targetEnd) }));
  return {
    path: note.path,
    uuid: note.uuid,
    title: note.title,
    superseded_by: note.superseded_by,
    supersedes: note.supersedes,
    links,
    headings: lists(noteHeadings(doc)),
    lines: { supersedes: note.supersedes.length ? keyLine(note, 'supersedes') : 1, superseded_by: note.superseded_by ? keyLine(note, 'superseded_by') : 1 },
    validity: validityOf(note),
    unreadDates: unreadDates(note.parsed.frontmatter).map((d) => ({ ...d, line: keyLine(note, d.key) })),
  };
}

function validityOf(note: Note): Validity {
  const { valid_from, valid_until } = note.times;
  return {
    date: note.date,
    valid_from,
    valid_until,
    lines: { valid_from: valid_from ? keyLine(note, 'valid_from') : 1, valid_until: valid_until ? keyLine(note, 'valid_until') : 1 },
  };
}

const FORMS: readonly string[] = ['inline', 'reference', 'wiki', 'autolink'] satisfies LinkForm[];

type KeptLink = [
  form: string,
  image: 0 | 1,
  label: string,
  target: string,
  fragment: string | null,
  uuid: string | null,
  line: number,
  start: number,
  end: number,
  linkEnd: number,
  targetStart: number,
  targetEnd: number,
  written: string,
];
type KeptHeadings = [slugs: string[], texts: string[], blocks: string[]];
type KeptValidity = [date: string, valid_from: string | null, valid_until: string | null, fromLine: number, untilLine: number];
type KeptUnreadDate = [key: string, value: string, line: number];
type Kept = [
  uuid: string,
  title: string,
  superseded_by: string | null,
  supersedes: string[],
  links: KeptLink[],
  headings: KeptHeadings,
  supersedesLine: number,
  supersededByLine: number,
  validity: KeptValidity,
  unreadDates?: KeptUnreadDate[],
];

const keepLink = (l: TendedLink): KeptLink => [
  l.form,
  l.image ? 1 : 0,
  l.label,
  l.target,
  l.fragment ?? null,
  l.uuid ?? null,
  l.line,
  l.start,
  l.end,
  l.linkEnd,
  l.targetStart,
  l.targetEnd,
  l.written,
];

function linkBack(k: unknown): TendedLink | undefined {
  if (!Array.isArray(k) || k.length !== 13) return undefined;
  const [form, image, label, target, fragment, uuid, line, start, end, linkEnd, targetStart, targetEnd, written] = k as KeptLink;
  if (
    !FORMS.includes(form) ||
    (image !== 0 && image !== 1) ||
    !isStr(label) ||
    !isStr(target) ||
    !isStrOrNull(fragment) ||
    !isStrOrNull(uuid) ||
    !isNum(line) ||
    !isNum(start) ||
    !isNum(end) ||
    !isNum(linkEnd) ||
    !isNum(targetStart) ||
    !isNum(targetEnd) ||
    !isStr(written)
  )
    return undefined;
  const link: TendedLink = { form: form as LinkForm, image: image === 1, label, target, line, start, end, linkEnd, targetStart, targetEnd, written };
  if (fragment !== null) link.fragment = fragment;
  if (uuid !== null) link.uuid = uuid;
  return link;
}

function validityBack(k: unknown, shared: boolean): Validity | string | undefined {
  if (!Array.isArray(k) || k.length !== 5) return undefined;
  const [date, valid_from, valid_until, fromLine, untilLine] = k as KeptValidity;
  if (!isStr(date) || !isStrOrNull(valid_from) || !isStrOrNull(valid_until) || !isNum(fromLine) || !isNum(untilLine)) return undefined;
  const lines = leanRecord({ valid_from: fromLine, valid_until: untilLine }, FIRST_VALIDITY_LINES, shared);
  if (shared && valid_from === null && valid_until === null && lines === FIRST_VALIDITY_LINES) return date;
  return { date, valid_from, valid_until, lines };
}

function unreadDateBack(k: unknown): UnreadDate | undefined {
  if (!Array.isArray(k) || k.length !== 3) return undefined;
  const [key, value, line] = k as KeptUnreadDate;
  return (DATE_KEYS as readonly string[]).includes(key) && isStr(value) && isNum(line) ? { key: key as DateKey, value, line } : undefined;
}

// The lines of keys a note does not have (1): shared by the kept facts of every such note.
const FIRST_KEY_LINES: Readonly<NoteFacts['lines']> = Object.freeze({ supersedes: 1, superseded_by: 1 });
const FIRST_VALIDITY_LINES: Readonly<Validity['lines']> = Object.freeze({ valid_from: 1, valid_until: 1 });

/** Kept as a row of its fields, each link as a row of its own: the name gives the path. */
const FACTS: DerivedKind<NoteFacts> = {
  file: 'notes-links.jsonl',
  // 5: the dates that cannot be read, and a date that cannot be read gives way to the file name's.
  version: 5,
  derive: noteFacts,
  encode: (f): Kept => {
    const h = headingLists(f);
    const v = noteValidity(f);
    const row: Kept = [
      f.uuid,
      f.title,
      f.superseded_by,
      f.supersedes,
      f.links.map(keepLink),
      [h.slugs, h.texts, h.blocks],
      f.lines.supersedes,
      f.lines.superseded_by,
      [v.date, v.valid_from, v.valid_until, v.lines.valid_from, v.lines.valid_until],
    ];
    // Most notes' dates all read: their row leaves the list out.
    if (f.unreadDates.length) row.push(f.unreadDates.map((d): KeptUnreadDate => [d.key, d.value, d.line]));
    return row;
  },
  decode(k, name, _seen, shared) {
    if (!Array.isArray(k) || (k.length !== 9 && k.length !== 10)) return undefined;
    const [uuid, title, superseded_by, supersedes, kept, headings, supersedesLine, supersededByLine, keptValidity, keptUnread = []] = k as Kept;
    const validity = validityBack(keptValidity, shared);
    if (validity === undefined || !Array.isArray(keptUnread)) return undefined;
    const unread = keptUnread.map(unreadDateBack);
    if (!unread.every((d): d is UnreadDate => d !== undefined)) return undefined;
    if (
      !isStr(uuid) ||
      !isStr(title) ||
      !isStrOrNull(superseded_by) ||
      !isStrs(supersedes) ||
      !Array.isArray(kept) ||
      !Array.isArray(headings) ||
      headings.length !== 3 ||
      !headings.every(isStrs) ||
      !isNum(supersedesLine) ||
      !isNum(supersededByLine)
    )
      return undefined;
    const links = kept.map(linkBack);
    if (!links.every((l): l is TendedLink => l !== undefined)) return undefined;
    const [slugs, texts, blocks] = headings;
    return {
      path: name,
      uuid,
      title,
      superseded_by,
      supersedes: lean(supersedes, shared),
      links: lean(links, shared),
      headings: keptHeadings(title, { slugs, texts, blocks }, shared),
      lines: leanRecord({ supersedes: supersedesLine, superseded_by: supersededByLine }, FIRST_KEY_LINES, shared),
      validity,
      unreadDates: lean(unread, shared),
    };
  },
};

/** The facts of every readable note, in file-name order: only notes that changed are read (see `loadDerived`). */
export function loadNoteFacts(root: string): NoteFacts[] {
  return loadDerived(root, FACTS);
}

/** What `build` makes of every note's facts, kept until a note changes, when a resident process keeps them; else undefined (see `keptBuilt`). */
export function keptFactsBuilt<R>(
  root: string,
  name: string,
  build: (facts: readonly NoteFacts[], factsOf: AnswerOf<NoteFacts>) => R,
  update?: BuiltUpdate<NoteFacts, R>,
): R | undefined {
  return keptBuilt(root, FACTS, name, build, update);
}
