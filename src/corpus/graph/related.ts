import { settings } from '../../context.js';
import { ZkError } from '../../errors.js';
import { encodeTarget, isNoteLink, linksByName, maskCode, parseLinks, type Link } from '../markdown/links.js';
import type { Note } from '../note/notes.js';

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

/** How the tool writes the links it adds: `[Title](file.md)` or, for Obsidian and zk users, `[[stem|Title]]`. */
export const LINK_STYLES = ['markdown', 'wikilink'] as const;
export type LinkStyle = (typeof LINK_STYLES)[number];

const anchor = (t: LinkTarget) => (t.uuid ? ` <!-- uuid: ${t.uuid.toLowerCase()} -->` : '');

/** `[Title](file.md) <!-- uuid: U -->` (the anchor only when the note has a uuid). */
export function markdownLink(t: LinkTarget): string {
  // Brackets in a label would end the link early.
  const label = t.title.replace(/\s+/g, ' ').replace(/\[/g, '(').replace(/\]/g, ')').trim() || t.path;
  return `[${label}](${encodeTarget(t.path)})${anchor(t)}`;
}

/**
 * `[[stem|Title]] <!-- uuid: U -->`: named by stem, which no other note has and a title edit does
 * not change; the title as the label (left out when it is the stem).
 */
export function wikiLink(t: LinkTarget): string {
  const stem = t.path.replace(/\.md$/i, '');
  // `]]` would end the link, `|` start the label, `[[` is not allowed inside
  const label = t.title.replace(/\s+/g, ' ').replace(/\[/g, '(').replace(/\]/g, ')').replace(/\|/g, '-').trim();
  return `[[${stem}${label && label !== stem ? `|${label}` : ''}]]${anchor(t)}`;
}

/** A link to `t` in the given style. */
export function formatLink(t: LinkTarget, style: LinkStyle = 'markdown'): string {
  return style === 'wikilink' ? wikiLink(t) : markdownLink(t);
}

/** The file a link names when it names one: a Markdown link's file, a wikilink by file name or stem. */
function linkedFile(l: Link): string | undefined {
  if (!linksByName(l)) return l.target;
  if (/\.md$/i.test(l.target)) return l.target;
  return /^\d{8}-/.test(l.target) ? `${l.target}.md` : undefined;
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
  return parseLinks(note.raw, note.parsed.bodyOffset)
    .filter((l) => l.start >= s.start && l.start < s.end && isNoteLink(l) && linkedFile(l))
    .map((l) => ({ title: l.label, path: linkedFile(l)!, uuid: l.uuid ?? '' }));
}

/** The file names and uuids (lowercase) a note's body links to. */
function linkedKeys(note: Note): Set<string> {
  const keys = new Set<string>();
  for (const l of parseLinks(note.raw, note.parsed.bodyOffset)) {
    if (!isNoteLink(l)) continue;
    keys.add((linkedFile(l) ?? l.target).toLowerCase());
    if (l.uuid) keys.add(l.uuid);
  }
  return keys;
}

/**
 * A note's text with `targets` added to its Related section: the section is extended in place (or
 * added at the end), and a note the body already links to, or the note itself, is not added again.
 */
export function addRelated(note: Note, targets: LinkTarget[], style: LinkStyle = 'markdown'): { text: string; added: LinkTarget[] } {
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
  const lines = added.map((t) => `- ${formatLink(t, style)}${eol}`).join('');
  const raw = note.raw;
  const s = findRelated(raw, note.parsed.bodyOffset);
  if (s) {
    const lead = (raw[s.contentEnd - 1] === '\n' ? '' : eol) + (s.empty ? eol : '');
    return { text: raw.slice(0, s.contentEnd) + lead + lines + raw.slice(s.contentEnd), added };
  }
  const base = raw === '' || raw.endsWith('\n') ? raw : raw + eol;
  return { text: `${base}${eol}## Related${eol}${eol}${lines}`, added };
}

/** The link style named by a flag, else by ZK_MEMORY_LINK_STYLE, else Markdown; undefined for an unknown name. */
export function configuredLinkStyle(flag?: string, env = settings().linkStyle()): LinkStyle | undefined {
  const name = (flag ?? env ?? 'markdown').trim().toLowerCase();
  return (LINK_STYLES as readonly string[]).includes(name) ? (name as LinkStyle) : undefined;
}

/** The configured link style; an unknown name is a usage error. */
export function requireLinkStyle(flag?: string, env = settings().linkStyle()): LinkStyle {
  const style = configuredLinkStyle(flag, env);
  if (!style) throw new ZkError('usage', `unknown link style: ${JSON.stringify(flag ?? env)} (one of ${LINK_STYLES.join(', ')})`);
  return style;
}

/** A note's own text: its body without the `# Title` line it starts with and without its Related section. */
export function ownText(body: string): string {
  const s = findRelated(body);
  const text = s ? body.slice(0, s.start) + body.slice(s.end) : body;
  return text.replace(/^\s*#[ \t]+[^\n]*\n?/, '').trim();
}
