import { encodeTarget, isNoteLink, maskCode, parseLinks } from './links.js';
import type { Note } from './notes.js';

// The one `## Related` section the tool keeps per note: found, extended in place, never doubled.

/** A note as a link names it. */
export interface LinkTarget {
  title: string;
  path: string;
  uuid: string;
}

export function linkTarget(n: LinkTarget): LinkTarget {
  return { title: n.title, path: n.path, uuid: n.uuid };
}

/** `[Title](file.md) <!-- uuid: U -->` (the anchor only when the note has a uuid). */
export function markdownLink(t: LinkTarget): string {
  // Brackets in a label would end the link early.
  const label = t.title.replace(/\s+/g, ' ').replace(/\[/g, '(').replace(/\]/g, ')').trim() || t.path;
  return `[${label}](${encodeTarget(t.path)})${t.uuid ? ` <!-- uuid: ${t.uuid.toLowerCase()} -->` : ''}`;
}

const RELATED_HEADING = /^##[ \t]+Related[ \t#]*$/i;
/** What ends a section: a heading of level 1 or 2, or a rule such as a merge fragment's `---`. */
const SECTION_END = /^(?:#{1,2}[ \t]|(?:-{3,}|\*{3,}|_{3,})[ \t]*$)/;

export interface RelatedSection {
  /** Where the heading line starts. */
  start: number;
  /** Where the section ends: the next level-1/2 heading, a rule, or the end of the text. */
  end: number;
  /** Just after the last non-blank line of the section (its line ending included). */
  contentEnd: number;
  /** Only the heading is there. */
  empty: boolean;
}

/** The first `## Related` section of a text at or after `from`, outside code. */
export function findRelated(text: string, from = 0): RelatedSection | undefined {
  const masked = maskCode(text);
  let section: RelatedSection | undefined;
  for (let at = from; at < text.length; ) {
    const nl = text.indexOf('\n', at);
    const next = nl < 0 ? text.length : nl + 1;
    const line = masked.slice(at, nl < 0 ? text.length : nl).replace(/\r$/, '');
    if (!section) {
      if (RELATED_HEADING.test(line)) section = { start: at, end: text.length, contentEnd: next, empty: true };
    } else if (SECTION_END.test(line)) {
      section.end = at;
      return section;
    } else if (line.trim()) {
      section.contentEnd = next;
      section.empty = false;
    }
    at = next;
  }
  return section;
}

/** The links of a note's Related section, as targets. */
export function relatedTargets(note: Note): LinkTarget[] {
  const s = findRelated(note.raw, note.parsed.bodyOffset);
  if (!s) return [];
  return parseLinks(note.raw)
    .filter((l) => l.start >= s.start && l.start < s.end && isNoteLink(l))
    .map((l) => ({ title: l.label, path: l.target, uuid: l.uuid ?? '' }));
}

/** The file names and uuids (lowercase) a note's body links to. */
function linkedKeys(note: Note): Set<string> {
  const keys = new Set<string>();
  for (const l of parseLinks(note.raw)) {
    if (l.start < note.parsed.bodyOffset || !isNoteLink(l)) continue;
    keys.add(l.target.toLowerCase());
    if (l.uuid) keys.add(l.uuid);
  }
  return keys;
}

/**
 * A note's text with `targets` added to its Related section: the section is extended in place (or
 * added at the end), and a note the body already links to, or the note itself, is not added again.
 */
export function addRelated(note: Note, targets: LinkTarget[]): { text: string; added: LinkTarget[] } {
  const linked = linkedKeys(note);
  linked.add(note.path.toLowerCase());
  if (note.uuid) linked.add(note.uuid.toLowerCase());
  const added: LinkTarget[] = [];
  for (const t of targets) {
    if (linked.has(t.path.toLowerCase()) || (t.uuid && linked.has(t.uuid.toLowerCase()))) continue;
    added.push(t);
    linked.add(t.path.toLowerCase());
    if (t.uuid) linked.add(t.uuid.toLowerCase());
  }
  if (!added.length) return { text: note.raw, added };
  const eol = note.parsed.eol;
  const lines = added.map((t) => `- ${markdownLink(t)}${eol}`).join('');
  const raw = note.raw;
  const s = findRelated(raw, note.parsed.bodyOffset);
  if (s) {
    const lead = (raw[s.contentEnd - 1] === '\n' ? '' : eol) + (s.empty ? eol : '');
    return { text: raw.slice(0, s.contentEnd) + lead + lines + raw.slice(s.contentEnd), added };
  }
  const base = raw === '' || raw.endsWith('\n') ? raw : raw + eol;
  return { text: `${base}${eol}## Related${eol}${eol}${lines}`, added };
}

/** A note's own text: its body without the `# Title` line it starts with and without its Related section. */
export function ownText(body: string): string {
  const s = findRelated(body);
  const text = s ? body.slice(0, s.start) + body.slice(s.end) : body;
  return text.replace(/^\s*#[ \t]+[^\n]*\n?/, '').trim();
}
