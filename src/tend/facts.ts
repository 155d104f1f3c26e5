import { isNoteLink, parseLinks, type Link, type LinkForm } from '../corpus/links.js';
import type { Note } from '../corpus/notes.js';
import { loadDerived, type DerivedKind } from '../corpus/stat-cache.js';

/** A link `tend` looks after, with its target exactly as written. */
export type TendedLink = Link & { written: string };

/**
 * What checking links needs of one note, without its text: who it is, the links `tend` looks
 * after, and where its supersession keys stand. One parse of the note gives all of it; a check of
 * an unchanged note reads it from a cache. (The headings a link names are read from the target
 * when a link names one: few notes are such targets.)
 */
export interface NoteFacts {
  path: string;
  uuid: string;
  title: string;
  superseded_by: string | null;
  supersedes: string[];
  /** Links to notes of the root (`name.md` or a wikilink, maybe `#heading`) and to own headings. */
  links: TendedLink[];
  /** The 1-based lines of the `supersedes` and `superseded_by` keys (1 when absent). */
  lines: { supersedes: number; superseded_by: number };
}

/** The line of a frontmatter key in a note. */
function keyLine(note: Note, key: string): number {
  const at = note.raw.slice(note.parsed.yamlStart, note.parsed.yamlEnd).search(new RegExp(`^${key}[ \\t]*:`, 'm'));
  return note.raw.slice(0, at < 0 ? 0 : note.parsed.yamlStart + at).split('\n').length;
}

/** The facts of a note, from one parse of its body. */
export function noteFacts(note: Note): NoteFacts {
  const links = parseLinks(note.raw, note.parsed.bodyOffset)
    .filter((l) => isNoteLink(l) || (l.target === '' && l.fragment !== undefined))
    .map((l) => ({ ...l, written: note.raw.slice(l.targetStart, l.targetEnd) }));
  return {
    path: note.path, uuid: note.uuid, title: note.title, superseded_by: note.superseded_by, supersedes: note.supersedes, links,
    lines: { supersedes: note.supersedes.length ? keyLine(note, 'supersedes') : 1, superseded_by: note.superseded_by ? keyLine(note, 'superseded_by') : 1 },
  };
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrOrNull = (v: unknown): v is string | null => v === null || isStr(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const FORMS: readonly string[] = ['inline', 'reference', 'wiki', 'autolink'] satisfies LinkForm[];

type KeptLink = [form: string, image: 0 | 1, label: string, target: string, fragment: string | null, uuid: string | null,
  line: number, start: number, end: number, linkEnd: number, targetStart: number, targetEnd: number, written: string];
type Kept = [uuid: string, title: string, superseded_by: string | null, supersedes: string[], links: KeptLink[], supersedesLine: number, supersededByLine: number];

const keepLink = (l: TendedLink): KeptLink =>
  [l.form, l.image ? 1 : 0, l.label, l.target, l.fragment ?? null, l.uuid ?? null, l.line, l.start, l.end, l.linkEnd, l.targetStart, l.targetEnd, l.written];

function linkBack(k: unknown): TendedLink | undefined {
  if (!Array.isArray(k) || k.length !== 13) return undefined;
  const [form, image, label, target, fragment, uuid, ...rest] = k as KeptLink;
  const written = rest[6];
  const [line, start, end, linkEnd, targetStart, targetEnd] = rest;
  if (!FORMS.includes(form) || (image !== 0 && image !== 1) || !isStr(label) || !isStr(target) || !isStrOrNull(fragment) || !isStrOrNull(uuid)
    || ![line, start, end, linkEnd, targetStart, targetEnd].every(isNum) || !isStr(written)) return undefined;
  return {
    form: form as LinkForm, image: image === 1, label, target, ...(fragment === null ? {} : { fragment }), ...(uuid === null ? {} : { uuid }),
    line, start, end, linkEnd, targetStart, targetEnd, written,
  };
}

/** Kept as a row of its fields, each link as a row of its own: the name gives the path. */
const FACTS: DerivedKind<NoteFacts> = {
  file: 'notes-links.json',
  version: 1,
  derive: noteFacts,
  encode: (f): Kept => [f.uuid, f.title, f.superseded_by, f.supersedes, f.links.map(keepLink), f.lines.supersedes, f.lines.superseded_by],
  decode(k, name) {
    if (!Array.isArray(k) || k.length !== 7) return undefined;
    const [uuid, title, superseded_by, supersedes, kept, supersedesLine, supersededByLine] = k as Kept;
    if (!isStr(uuid) || !isStr(title) || !isStrOrNull(superseded_by) || !Array.isArray(supersedes) || !supersedes.every(isStr)
      || !Array.isArray(kept) || !isNum(supersedesLine) || !isNum(supersededByLine)) return undefined;
    const links = kept.map(linkBack);
    if (!links.every((l): l is TendedLink => l !== undefined)) return undefined;
    return { path: name, uuid, title, superseded_by, supersedes, links, lines: { supersedes: supersedesLine, superseded_by: supersededByLine } };
  },
};

/** The facts of every readable note, in file-name order: only notes that changed are read (see `loadDerived`). */
export function loadNoteFacts(root: string): NoteFacts[] {
  return loadDerived(root, FACTS);
}
