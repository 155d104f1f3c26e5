import GithubSlugger, { slug as slugOf } from 'github-slugger';
import { parseBody, type Link } from './links.js';
import type { MarkdownDoc } from './markdown.js';
import { nameKey } from './note-names.js';

/** Everything a link's `#fragment` may name in a note. */
export interface NoteHeadings {
  /** GitHub's slugs of the headings, and explicit `<a name|id="…">` anchors: what a Markdown link names. */
  slugs: Set<string>;
  /** The headings' text as wikilinks compare it (Obsidian matches the text, not a slug). */
  texts: Set<string>;
  /** Obsidian block ids (`^id` at the end of a line), named by `[[note#^id]]`. */
  blocks: Set<string>;
}

/** GitHub's slug of one heading text: lowercase, punctuation other than - and _ dropped, spaces to -. */
export function githubSlug(text: string): string {
  return slugOf(text);
}

/** Characters a wikilink cannot hold; Obsidian writes a space for each when it links to a heading. */
const NOT_IN_WIKILINK = /[#|^:%[\]\\]/g;

function wikiHeadingKey(text: string): string {
  return nameKey(text.replace(NOT_IN_WIKILINK, ' '));
}

/** The headings of a parsed body: GitHub slugs in order (repeats get -1, -2, …), texts, anchors, block ids. */
export function noteHeadings(doc: MarkdownDoc): NoteHeadings {
  const slugger = new GithubSlugger();
  const slugs = new Set(doc.headings.map((h) => slugger.slug(h.text)));
  for (const a of doc.anchors) slugs.add(a);
  return { slugs, texts: new Set(doc.headings.map((h) => wikiHeadingKey(h.text))), blocks: new Set(doc.blockIds) };
}

/** A body's headings as lists (in order, as `noteHeadings` finds them). */
export interface HeadingLists {
  slugs: string[];
  texts: string[];
  blocks: string[];
}

/** The headings of a body whose only heading is `# title`, and no anchor or block id. */
export function titleHeadings(title: string): HeadingLists {
  return { slugs: [githubSlug(title)], texts: [wikiHeadingKey(title)], blocks: [] };
}

/**
 * Every `#fragment` a Markdown body answers to: the GitHub slugs of its ATX and setext headings
 * (those inside code do not count) and explicit `<a name|id="…">` anchors.
 */
export function headingSlugs(body: string): Set<string> {
  return noteHeadings(parseBody(body)).slugs;
}

/** Whether a link's `#fragment` (as written, maybe percent-encoded) names one of these slugs. */
export function hasFragment(slugs: Set<string>, fragment: string): boolean {
  let decoded = fragment;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    // keep it as written
  }
  return slugs.has(decoded) || slugs.has(decoded.toLowerCase());
}

/** Whether a wikilink's `#heading` (or `#^block`, or `#outer#inner`) names a heading or block of the note. */
export function hasWikiFragment(h: NoteHeadings, fragment: string): boolean {
  const last = fragment.split('#').pop()!.trim();
  if (last.startsWith('^')) return h.blocks.has(last.slice(1));
  return h.texts.has(wikiHeadingKey(last));
}

/** Whether a link's fragment names something in a note with these headings, by the rules of its form. */
export function linkFragmentFound(h: NoteHeadings, link: Link): boolean {
  if (link.fragment === undefined) return true;
  return link.form === 'wiki' ? hasWikiFragment(h, link.fragment) : hasFragment(h.slugs, link.fragment);
}
