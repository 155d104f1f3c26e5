import { parseMarkdown, type LinkForm, type MarkdownDoc, type RawLink } from './markdown.js';
import { scanPlain } from './plain-scan.js';

/** A link found in a note, outside code and HTML, to something that is not an external URL. */
export interface Link {
  /** How it is written: `[l](t)`, `[l][ref]` (target in a definition), `[[t]]`, or `<scheme:…>`. */
  form: LinkForm;
  /** An image (`![…](…)`) or an embed (`![[…]]`). */
  image: boolean;
  label: string;
  /** The link target (path part, without `#fragment`), decoded; a wikilink's target as written. */
  target: string;
  /** The `#fragment`, without '#', when the link has one. */
  fragment?: string;
  /** The uuid of the hidden anchor `<!-- uuid: U -->` right after the link, if present. */
  uuid?: string;
  /** 1-based line number. */
  line: number;
  /** Offsets of the whole link (and its anchor, when present) in the text. */
  start: number;
  end: number;
  /** Where the link itself ends: `end` without the anchor. */
  linkEnd: number;
  /**
   * Offsets of the target as written: a destination's characters (inside `<…>` when it has them;
   * in the definition for a reference link), or a wikilink's `target#heading`. A rewrite changes
   * these characters and nothing else.
   */
  targetStart: number;
  targetEnd: number;
}

const ANCHOR = /^[ \t]*<!--\s*uuid:\s*([0-9a-fA-F-]{8,})\s*-->/;
const EXTERNAL = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/\/)/;
/** What a link needs: `[` for every bracketed form, `<` for an autolink. Text without either holds no link. */
const MAY_LINK = /[[<]/;
const MAY_HEAD = /^[ \t>]*#|^[ \t]*(?:=+|-+)[ \t]*\r?$/m;

export interface ParseLinksOptions {
  /** Where to start (a note's body offset): the text before it is not parsed. */
  from?: number;
  /** Also return links to external URLs (autolinks, `https:`…). */
  external?: boolean;
  /** Also return Markdown images (`![alt](pic.png)`); embeds `![[note]]` are always returned. */
  images?: boolean;
  /** A parse of `text.slice(from)` already made. */
  doc?: MarkdownDoc;
}

/**
 * The links and headings of `text` from `from` on (a note's body: its frontmatter is not Markdown).
 * A text in the plain subset of Markdown is scanned, anything else parsed; `exact` always parses
 * (the scan does not look for literal URLs).
 */
export function parseBody(text: string, from = 0, o: { exact?: boolean } = {}): MarkdownDoc {
  const body = from ? text.slice(from) : text;
  if (!MAY_LINK.test(body) && !MAY_HEAD.test(body)) return { links: [], headings: [], anchors: [], blockIds: [] };
  return (!o.exact && scanPlain(body)) || parseMarkdown(body);
}

/** Links to files (not external URLs unless asked, not in code), with their line numbers and anchors. */
export function parseLinks(text: string, o: ParseLinksOptions | number = {}): Link[] {
  const opts = typeof o === 'number' ? { from: o } : o;
  const from = opts.from ?? 0;
  const doc = opts.doc ?? parseBody(text, from, { exact: opts.external });
  if (!doc.links.length) return [];
  const lineBase = from ? countLines(text, from) : 0;
  const links: Link[] = [];
  for (const r of doc.links) {
    if (r.image && r.form !== 'wiki' && !opts.images) continue;
    const link = toLink(text, r, from, lineBase);
    if (link && (opts.external || !EXTERNAL.test(link.form === 'wiki' ? '' : r.url))) links.push(link);
  }
  return links;
}

function countLines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function toLink(text: string, r: RawLink, from: number, lineBase: number): Link | undefined {
  const wiki = r.form === 'wiki';
  if (!r.url && !wiki) return undefined;
  const hash = r.url.indexOf('#');
  const path = hash >= 0 ? r.url.slice(0, hash) : r.url;
  const fragment = hash >= 0 ? r.url.slice(hash + 1) : undefined;
  const linkEnd = r.end + from;
  let end = linkEnd;
  const anchor = ANCHOR.exec(text.slice(end, end + 200));
  if (anchor) end += anchor[0].length;
  return {
    form: r.form,
    image: r.image,
    label: r.label,
    // `./x.md` names the same note as `x.md`; a wikilink names a note, never a path
    target: wiki ? path.trim() : decodeTarget(path).replace(/^(?:\.\/)+/, ''),
    fragment: fragment || undefined,
    uuid: anchor ? anchor[1].toLowerCase() : undefined,
    line: r.line + lineBase,
    start: r.start + from,
    end,
    linkEnd,
    targetStart: r.destStart + from,
    targetEnd: r.destEnd + from,
  };
}

function decodeTarget(t: string): string {
  try {
    return decodeURIComponent(t);
  } catch {
    return t;
  }
}

/** A file name as a bare Markdown link target: characters a target cannot hold as they are, %-encoded. */
export function encodeTarget(name: string): string {
  return name.replace(/[\s()<>%#?]/gu, (c) => [...Buffer.from(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

/** Files a wikilink embeds rather than names: `![[diagram.png]]` is an attachment, not a note. */
const ATTACHMENT = /\.(?:png|jpe?g|gif|svg|webp|bmp|avif|pdf|mp3|wav|ogg|m4a|flac|mp4|webm|mov|mkv|canvas|base|excalidraw)$/i;

/**
 * A link to a note of the same folder: `name.md` with no directory part, or a wikilink (which
 * names a note by stem, file name, title or undated slug) that is not to an attachment.
 */
export function isNoteLink(link: Link): boolean {
  if (link.form === 'wiki') return link.target !== '' && !ATTACHMENT.test(link.target);
  return /^[^/\\]+\.md$/i.test(link.target) || isNameLink(link);
}

/** A file's extension, as a target that names a file rather than a note ends (`.png`, `.txt`, `.md`). */
const EXTENSION = /\.[A-Za-z0-9]{1,5}$/;

/**
 * A Markdown link that names a note the way a wikilink does, by a name without `.md`: a slug, a
 * stem or a title (`[Dana](dana-whitfield)`, `[Dana](<Dana Whitfield>)`, `[Dana](Dana%20Whitfield)`),
 * as other tools write them. A target with a folder or a file extension names a file, not a note.
 */
export function isNameLink(link: Pick<Link, 'form' | 'target'>): boolean {
  return (
    (link.form === 'inline' || link.form === 'reference') &&
    link.target !== '' &&
    !/[/\\]/.test(link.target) &&
    !link.target.startsWith('.') &&
    !EXTENSION.test(link.target)
  );
}

/** Whether a link names its note by a name (a wikilink or a name link), not by its file name. */
export function linksByName(link: Pick<Link, 'form' | 'target'>): boolean {
  return link.form === 'wiki' || isNameLink(link);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Blank out fenced code blocks and inline code spans, keeping every offset and newline in place. */
export function maskCode(text: string): string {
  const lines = text.split('\n');
  let fence: string | undefined;
  const out: string[] = [];
  for (const line of lines) {
    const m = FENCE.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = undefined;
      out.push(' '.repeat(line.length));
      continue;
    }
    if (m) {
      fence = m[1];
      out.push(' '.repeat(line.length));
      continue;
    }
    out.push(line.replace(/(`+)[^`]*?\1/g, (c) => ' '.repeat(c.length)));
  }
  return out.join('\n');
}
