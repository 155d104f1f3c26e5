import type { Element, Nodes as HastNodes } from 'hast';
import { sanitize, defaultSchema } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toHast } from 'mdast-util-to-hast';
import { gfmParts, gfmPartsFromMarkdown } from '../api/browse.js';
import { esc, noteHref } from './html.js';

// A note's Markdown as HTML a browser may show: CommonMark with GitHub's extensions as the tool reads
// notes (src/corpus/markdown/gfm-parts.ts), raw HTML left
// out (shown as nothing), then the HTML sanitised by hast-util-sanitize's GitHub schema, which
// keeps only safe elements and attributes and drops `javascript:` and other unsafe URLs. A link to
// a note of the corpus leads to the note's page.

/**
 * A text this large is shown as it is, not parsed (rendering it would hold the server for long), and
 * only so much of it: a browser takes seconds to lay out megabytes of text.
 */
const RENDER_LIMIT = 1_000_000;

/** A text shown as it is, cut after the last whole line within the limit, saying how much is left out. */
function plainText(markdown: string): string {
  if (markdown.length <= RENDER_LIMIT) return `<pre class="raw">${esc(markdown)}</pre>`;
  const cut = markdown.lastIndexOf('\n', RENDER_LIMIT) + 1 || RENDER_LIMIT;
  const left = markdown.length - cut;
  return `<pre class="raw">${esc(markdown.slice(0, cut))}</pre>\n<p class="cut muted">${left.toLocaleString('en')} more characters are in the note's file, not shown here.</p>`;
}

/** A relative link to a note file of the root (`20261201-judy.md`, `./judy.md#heading`). */
function noteTarget(href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(href)) return undefined;
  const [file, hash] = href.replace(/^\.\//, '').split('#', 2);
  let name: string;
  try {
    name = decodeURIComponent(file);
  } catch {
    return undefined;
  }
  if (!/\.md$/i.test(name) || name.includes('/') || name.startsWith('.')) return undefined;
  return noteHref(name) + (hash ? `#user-content-${encodeURIComponent(hash)}` : '');
}

function pointNoteLinks(node: HastNodes): void {
  if (node.type === 'element' && node.tagName === 'a') {
    const href = (node as Element).properties?.href;
    const to = typeof href === 'string' ? noteTarget(href) : undefined;
    if (to) node.properties.href = to;
  }
  if ('children' in node) for (const child of node.children) pointNoteLinks(child as HastNodes);
}

/** Safe HTML for a note's Markdown. */
export function markdownHtml(markdown: string): string {
  if (markdown.length > RENDER_LIMIT) return plainText(markdown);
  try {
    const mdast = fromMarkdown(markdown, { extensions: gfmParts(), mdastExtensions: gfmPartsFromMarkdown() });
    const hast = toHast(mdast);
    pointNoteLinks(hast as HastNodes);
    return toHtml(sanitize(hast as HastNodes, defaultSchema));
  } catch {
    // A text the renderer cannot take (nested past its depth): shown as text.
    return plainText(markdown);
  }
}
