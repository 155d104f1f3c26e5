import { maskCode } from '../corpus/links.js';

const ATX = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const HTML_ANCHOR = /<a\s[^>]*\b(?:name|id)\s*=\s*["']([^"']+)["']/gi;

/** The text a heading renders to: link labels instead of links, no code ticks, no HTML tags. */
function headingText(source: string): string {
  return source
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+/g, '')
    .replace(/<[^>]*>/g, '')
    .trim();
}

/** GitHub's slug of one heading text: lowercase, punctuation other than - and _ dropped, spaces to -. */
export function githubSlug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Hands out GitHub slugs for a document's headings in order: repeats get -1, -2, … */
class Slugger {
  private readonly seen = new Map<string, number>();

  slug(text: string): string {
    const base = githubSlug(text);
    let result = base;
    while (this.seen.has(result)) {
      const n = this.seen.get(base)! + 1;
      this.seen.set(base, n);
      result = `${base}-${n}`;
    }
    this.seen.set(result, 0);
    return result;
  }
}

/**
 * Every `#fragment` a Markdown body answers to: the GitHub slugs of its ATX and setext headings
 * (those inside code do not count) and explicit `<a name|id="…">` anchors.
 */
export function headingSlugs(body: string): Set<string> {
  const lines = body.split(/\r?\n/);
  const masked = maskCode(body).split(/\r?\n/);
  const slugger = new Slugger();
  const slugs = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const atx = ATX.exec(masked[i]) ? ATX.exec(lines[i]) : null;
    if (atx) {
      slugs.add(slugger.slug(headingText(atx[2].replace(/(?:^|[ \t]+)#+[ \t]*$/, ''))));
      continue;
    }
    const next = masked[i + 1];
    if (next !== undefined && SETEXT_UNDERLINE.test(next) && masked[i].trim() && !isBlockStart(masked[i])) {
      slugs.add(slugger.slug(headingText(lines[i])));
      i++;
    }
  }
  for (const m of body.matchAll(HTML_ANCHOR)) slugs.add(m[1]);
  return slugs;
}

/** Lines that cannot be the text of a setext heading (lists, quotes, rules, tables, HTML). */
function isBlockStart(line: string): boolean {
  return /^\s*(?:[-*+>|<]|\d+[.)]\s|(?:[-=_*]\s*){3,}$)/.test(line);
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
