import type { Definition, Heading, Nodes, Root } from 'mdast';
import { fromMarkdown, type CompileContext, type Extension as MdastExtension, type Token } from 'mdast-util-from-markdown';
import { gfmParts, gfmPartsFromMarkdown } from './gfm-parts.js';
import { wikilinkSyntax } from './wikilink.js';

// What the CommonMark (+ GFM, + wikilinks) parser found in a text, with source offsets. The mdast
// tree alone does not say where a link's destination is written, so the token handlers below note
// the destination's offsets on the node while the tree is built: a rewrite then changes exactly
// those characters.

export type LinkForm = 'inline' | 'reference' | 'wiki' | 'autolink';

/** A link as written: where it is, and where its destination (or wikilink target) is. */
export interface RawLink {
  form: LinkForm;
  /** `![…](…)`, `![…][…]` or an embed `![[…]]`. */
  image: boolean;
  /** The label as written (for a wikilink: its alias, else its target). */
  label: string;
  /** Offsets of the whole link. */
  start: number;
  end: number;
  /** Offsets of the destination as written (inside `<…>`); for a reference, in its definition; for a wikilink, `target#heading`. */
  destStart: number;
  destEnd: number;
  /** The destination with escapes and entities resolved; for a wikilink, as written. */
  url: string;
  /** 1-based line of `start`. */
  line: number;
}

export interface RawHeading {
  depth: number;
  /** The text it renders to: no markup, no code ticks, no HTML. */
  text: string;
  line: number;
}

export interface MarkdownDoc {
  links: RawLink[];
  headings: RawHeading[];
  /** Names of `<a name|id="…">` anchors in HTML. */
  anchors: string[];
  /** Obsidian block ids: `^id` at the end of a line of text. */
  blockIds: string[];
}

/** What the token handlers note on a node, in `node.data`. */
interface Located {
  destStart?: number;
  destEnd?: number;
  labelEnd?: number;
}

interface WikiToken {
  start: number;
  end: number;
  valueStart: number;
  valueEnd: number;
  line: number;
}

const HTML_ANCHOR = /<a\s[^>]*\b(?:name|id)\s*=\s*["']([^"']+)["']/gi;
const BLOCK_ID = /(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$/gm;

function located(ctx: CompileContext): Located {
  const node = ctx.stack[ctx.stack.length - 1] as { data?: Located };
  node.data ??= {};
  return node.data;
}

/** Token handlers for tokens the tree builder has no handler of its own for. */
function positions(text: string, wikis: WikiToken[]): MdastExtension {
  let value: { start: number; end: number } | undefined;
  const destination = function (this: CompileContext, token: Token) {
    const d = located(this);
    const literal = text[token.start.offset] === '<';
    d.destStart = token.start.offset + (literal ? 1 : 0);
    d.destEnd = token.end.offset - (literal ? 1 : 0);
  };
  const labelEnd = function (this: CompileContext, token: Token) {
    located(this).labelEnd = token.start.offset - 1;
  };
  return {
    enter: { resource: labelEnd },
    exit: {
      resourceDestination: destination,
      definitionDestination: destination,
      reference: labelEnd,
      wikilinkValue(token) {
        value = { start: token.start.offset, end: token.end.offset };
      },
      wikilink(token) {
        if (value) wikis.push({ start: token.start.offset, end: token.end.offset, valueStart: value.start, valueEnd: value.end, line: token.start.line });
        value = undefined;
      },
    },
  };
}

/** The text a heading renders to (what GitHub and Obsidian slug or match). */
function plainText(node: Nodes): string {
  if (node.type === 'text' || node.type === 'inlineCode') return node.value;
  if (node.type === 'html' || node.type === 'image' || node.type === 'imageReference') return '';
  return 'children' in node ? node.children.map(plainText).join('') : '';
}

function walk(node: Nodes, visit: (n: Nodes) => void): void {
  visit(node);
  if ('children' in node) for (const c of node.children) walk(c, visit);
}

/** Parse a Markdown text: links of every form, their definitions resolved, headings, anchors. */
export function parseMarkdown(text: string): MarkdownDoc {
  const wikis: WikiToken[] = [];
  const tree: Root = fromMarkdown(text, {
    extensions: [...gfmParts(), wikilinkSyntax()],
    mdastExtensions: [...gfmPartsFromMarkdown(), positions(text, wikis)],
  });
  const definitions = new Map<string, Definition>();
  walk(tree, (n) => {
    // the first definition of a label wins (CommonMark)
    if (n.type === 'definition' && !definitions.has(n.identifier)) definitions.set(n.identifier, n);
  });

  const doc: MarkdownDoc = { links: [], headings: [], anchors: [], blockIds: [] };
  walk(tree, (n) => {
    const pos = n.position;
    if (!pos) return;
    const start = pos.start.offset!;
    const end = pos.end.offset!;
    const line = pos.start.line;
    const d = (n.data ?? {}) as Located;
    switch (n.type) {
      case 'link':
      case 'image': {
        const image = n.type === 'image';
        if (d.destStart === undefined) {
          // `<scheme:…>` or a GFM literal URL: the destination is the text itself
          const inner = text[start] === '<' ? 1 : 0;
          doc.links.push({
            form: 'autolink',
            image,
            label: text.slice(start + inner, end - inner),
            start,
            end,
            destStart: start + inner,
            destEnd: end - inner,
            url: n.url,
            line,
          });
          break;
        }
        const labelStart = start + (image ? 2 : 1);
        doc.links.push({
          form: 'inline',
          image,
          label: text.slice(labelStart, d.labelEnd ?? labelStart),
          start,
          end,
          destStart: d.destStart,
          destEnd: d.destEnd!,
          url: n.url,
          line,
        });
        break;
      }
      case 'linkReference':
      case 'imageReference': {
        const def = definitions.get(n.identifier);
        const dd = (def?.data ?? {}) as Located;
        if (!def || dd.destStart === undefined) break;
        const image = n.type === 'imageReference';
        const labelStart = start + (image ? 2 : 1);
        const labelEnd = n.referenceType === 'shortcut' ? end - 1 : (d.labelEnd ?? end - 1);
        doc.links.push({
          form: 'reference',
          image,
          label: text.slice(labelStart, labelEnd),
          start,
          end,
          destStart: dd.destStart,
          destEnd: dd.destEnd!,
          url: def.url,
          line,
        });
        break;
      }
      case 'heading':
        doc.headings.push({ depth: (n as Heading).depth, text: plainText(n).trim(), line });
        break;
      case 'html':
        for (const m of n.value.matchAll(HTML_ANCHOR)) doc.anchors.push(m[1]);
        break;
      case 'text':
        if (n.value.includes('^')) for (const m of n.value.matchAll(BLOCK_ID)) doc.blockIds.push(m[1]);
        break;
    }
  });

  for (const w of wikis) {
    const raw = text.slice(w.valueStart, w.valueEnd);
    // `\|` is how a wikilink keeps its alias inside a GFM table cell
    const bar = raw.indexOf('|');
    const targetEnd = bar < 0 ? raw.length : raw[bar - 1] === '\\' ? bar - 1 : bar;
    const target = raw.slice(0, targetEnd);
    doc.links.push({
      form: 'wiki',
      image: text[w.start] === '!',
      label: bar < 0 ? target : raw.slice(bar + 1),
      start: w.start,
      end: w.end,
      destStart: w.valueStart,
      destEnd: w.valueStart + targetEnd,
      url: target,
      line: w.line,
    });
  }
  doc.links.sort((a, b) => a.start - b.start);
  return doc;
}
