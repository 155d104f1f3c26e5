import path from 'node:path';
import { encodeTarget, parseLinks } from '../../corpus/markdown/links.js';
import { firstHeading, parseNoteText } from '../../corpus/note/format.js';
import { isKind } from '../../corpus/note/kinds.js';
import { dayOf } from './source.js';
import type { FolderFile } from './folder.js';
import type { NoteItem, PlacedNotes } from './items.js';

// A folder of Markdown notes (an Obsidian vault, a basic-memory project, a Claude Code memory
// folder) as note items: nested folders made flat, each file's frontmatter kept, and its links to
// other files of the folder rewritten where the note they lead to is no longer found by the name
// the link uses (a file name always; a wikilink only when its name no longer fits that note alone).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A link target that names a file other than a note (`map.png`, `paper.pdf`). */
const OTHER_FILE = /\.(?!md$)[A-Za-z0-9]{1,5}$/i;

/** A Markdown file of the folder, read: what its links and its note are made from. */
export interface SourceNote {
  id: string;
  file: FolderFile;
  title: string;
  aliases: string[];
  frontmatter: Record<string, unknown>;
  /** The text after the frontmatter. */
  body: string;
}

const stemOf = (rel: string) => path.posix.basename(rel).replace(/\.md$/i, '');
const key = (s: string) => s.normalize('NFC').trim().toLowerCase();

function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * A folder file as a source note: its title is its frontmatter's `title` (or `titleKey`), else
 * (with `heading`) its first heading, else its file name, as Obsidian titles a note.
 */
export function sourceNote(file: FolderFile, o: { titleKey?: string; heading?: boolean } = {}): SourceNote {
  const parsed = parseNoteText(file.text);
  const fm = parsed.yamlError ? {} : parsed.frontmatter;
  const given = fm[o.titleKey ?? 'title'] ?? fm.title;
  const title = typeof given === 'string' && given.trim() ? given.trim() : (o.heading && firstHeading(parsed.body)) || stemOf(file.rel);
  return {
    id: file.rel,
    file,
    title,
    aliases: strings(fm.aliases ?? fm.alias),
    frontmatter: fm,
    body: parsed.hasFrontmatter && !parsed.yamlError ? parsed.body : file.text,
  };
}

/** How links inside the folder name its notes: by path, by file name (as Obsidian resolves them), by title or alias. */
export class SourceNames {
  private readonly byPath = new Map<string, SourceNote>();
  private readonly byStem = new Map<string, SourceNote[]>();
  private readonly byTitle = new Map<string, SourceNote[]>();

  constructor(notes: SourceNote[]) {
    const add = (m: Map<string, SourceNote[]>, k: string, n: SourceNote) => m.set(k, [...(m.get(k) ?? []), n]);
    for (const n of notes) {
      this.byPath.set(key(n.id.replace(/\.md$/i, '')), n);
      add(this.byStem, key(stemOf(n.id)), n);
      for (const t of new Set([n.title, ...n.aliases].map(key))) add(this.byTitle, t, n);
    }
  }

  /** The note `target` (a path, a file name, a title or an alias) names from the file `from`; undefined when none or several. */
  resolve(target: string, from: string): SourceNote | undefined {
    const t = target.replace(/^\.?\//, '').replace(/\.md$/i, '');
    if (!t) return undefined;
    if (t.includes('/')) {
      const relative = path.posix.normalize(path.posix.join(path.posix.dirname(from), t));
      return this.byPath.get(key(t)) ?? this.byPath.get(key(relative));
    }
    const stems = this.byStem.get(key(t));
    if (stems?.length === 1) return stems[0];
    if (stems?.length) {
      // Obsidian's rule for a name several files bear: the one beside the linking file, else the one nearest the top.
      const here = stems.find((n) => path.posix.dirname(n.id) === path.posix.dirname(from));
      return here ?? [...stems].sort((a, b) => a.id.split('/').length - b.id.split('/').length || a.id.localeCompare(b.id))[0];
    }
    const titled = this.byTitle.get(key(t));
    return titled?.length === 1 ? titled[0] : undefined;
  }
}

/**
 * The text with its links to other notes of the folder leading to where those notes went: a
 * Markdown link gets the note's new file name; a wikilink keeps its name when that name still fits
 * the note alone, else gets the new file name, with what it showed kept as its label.
 */
export function relinked(text: string, from: string, names: SourceNames, placed: PlacedNotes): string {
  const edits = new Map<number, { end: number; with: string }>();
  for (const l of parseLinks(text, { images: false })) {
    if (l.image && l.form !== 'wiki') continue;
    if (OTHER_FILE.test(l.target)) continue;
    const to = names.resolve(l.target, from);
    const name = to && placed.name(to.id);
    if (!to || !name) continue;
    const fragment = l.fragment !== undefined ? `#${l.fragment}` : '';
    if (l.form === 'wiki') {
      if (placed.names(l.target, to.id)) continue;
      const written = text.slice(l.targetStart, l.targetEnd);
      const label = text.startsWith(']]', l.targetEnd) ? `|${written}` : '';
      edits.set(l.targetStart, { end: l.targetEnd, with: `${name.replace(/\.md$/, '')}${fragment}${label}` });
    } else if (l.target !== name) {
      edits.set(l.targetStart, { end: l.targetEnd, with: `${encodeTarget(name)}${fragment}` });
    }
  }
  let out = text;
  for (const [start, e] of [...edits].sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + e.with + out.slice(e.end);
  return out;
}

/** The frontmatter keys the note sets itself: not carried over as the source's. */
const OWN_KEYS = new Set(['uuid', 'title', 'date', 'kind']);

/** A source note as a note item: its frontmatter kept (but the keys the note sets), its body relinked. */
export function noteItemOf(n: SourceNote, names: SourceNames, o: { label?: string; author?: string; drop?: string[] } = {}): NoteItem {
  const fm = n.frontmatter;
  const extra = Object.fromEntries(Object.entries(fm).filter(([k]) => !OWN_KEYS.has(k) && !o.drop?.includes(k)));
  // The heading the file opens with is the title the note gets anyway.
  const body = n.body.replace(/^\s*#[ \t]+(.+?)[ \t#]*(?:\r?\n|$)/, (m, h: string) => (h.trim() === n.title ? '' : m));
  const uuid = typeof fm.uuid === 'string' && UUID.test(fm.uuid) ? fm.uuid.toLowerCase() : undefined;
  return {
    type: 'note',
    id: n.id,
    label: o.label ?? n.id,
    title: n.title,
    body: (placed) => relinked(body, n.id, names, placed),
    uuid,
    date: dayOf(fm.date) ?? dayOf(fm.created) ?? new Date(n.file.mtimeMs).toISOString().slice(0, 10),
    kind: isKind(String(fm.kind)) ? String(fm.kind) : undefined,
    author: o.author,
    extra: Object.keys(extra).length ? extra : undefined,
  };
}
