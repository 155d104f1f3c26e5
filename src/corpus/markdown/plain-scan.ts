import type { MarkdownDoc, RawHeading, RawLink } from './markdown.js';

// The CommonMark parser costs about a millisecond per note, which at 10k notes is more than a whole
// `tend check` used to take. Most notes, and every note the tool writes, use a small part of
// Markdown: plain inline links (maybe followed by a uuid anchor), plain ATX headings, fenced code,
// one-line code spans. For a text made only of that subset this scan gives exactly what the parser
// gives; anything outside it (escapes, entities, HTML, references, wikilinks, images, titles,
// setext headings, indented lines, brackets that are not a plain link…) makes it answer undefined,
// and the parser reads the note instead.

/** Characters or sequences whose meaning the scan does not work out. */
const OUTSIDE = /[\\&^~\t]|\[\[|!\[|\]:|\]\[|\[\]/;
const FENCE_OPEN = /^(`{3,})([^`]*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,})[ \t]*$/;
const INDENTED = /^ {4}/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const HEADING_IN_CONTAINER = /^[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t])[ \t>]*#/;
const PLAIN_HEADING = /^[^*_`[\]<|]*$/;
const ANCHOR_AFTER_LINK = /\)[ \t]*<!--[ \t]*uuid:[ \t]*[0-9a-fA-F-]{8,}[ \t]*-->/g;
const LINK = /\[([^[\]\n]*)\]\(([^()\s<>]*)\)/g;
/** What may stand right before a link's `[` without a literal URL or another construct taking it. */
const BEFORE_LINK = /[\s(*_"'>]/;

/** Ranges `[from, to)` to blank out, none of them across a line ending. */
type Ranges = [number, number][];

function masked(text: string, ranges: Ranges): string {
  if (!ranges.length) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [from, to] of ranges) {
    out += text.slice(at, from) + ' '.repeat(to - from);
    at = to;
  }
  return out + text.slice(at);
}

const count = (s: string, c: string) => {
  let n = 0;
  for (let i = s.indexOf(c); i >= 0; i = s.indexOf(c, i + 1)) n++;
  return n;
};

/**
 * Blank code spans of one line in place; false when its backtick runs do not pair up one after the
 * other with equal lengths (then CommonMark's pairing needs the parser).
 */
function maskCodeSpans(ranges: Ranges, line: string, at: number): boolean {
  if (!line.includes('`')) return true;
  const runs = [...line.matchAll(/`+/g)];
  if (runs.length % 2) return false;
  for (let i = 0; i < runs.length; i += 2) {
    const open = runs[i];
    const close = runs[i + 1];
    if (open[0].length !== close[0].length || open[0].length >= 3) return false;
    ranges.push([at + open.index!, at + close.index! + close[0].length]);
  }
  return true;
}

/** Links and headings of a text in the plain subset, or undefined when the parser must read it. */
export function scanPlain(text: string): MarkdownDoc | undefined {
  if (OUTSIDE.test(text)) return undefined;
  const ranges: Ranges = [];
  // every `<` must be a uuid anchor right after a link
  const lt = count(text, '<');
  if (lt) {
    for (const m of text.matchAll(ANCHOR_AFTER_LINK)) ranges.push([m.index! + 1, m.index! + m[0].length]);
    if (ranges.length !== lt) return undefined;
  }

  const headings: RawHeading[] = [];
  let fence: string | undefined;
  let previousBlank = true;
  let at = 0;
  let lineNo = 0;
  for (const rawLine of text.split('\n')) {
    lineNo++;
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const lineStart = at;
    at += rawLine.length + 1;
    if (fence) {
      const close = FENCE_CLOSE.exec(line);
      if (close && close[1].length >= fence.length) fence = undefined;
      ranges.push([lineStart, lineStart + line.length]);
      previousBlank = true;
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    if (open) {
      fence = open[1];
      ranges.push([lineStart, lineStart + line.length]);
      previousBlank = true;
      continue;
    }
    if (line.includes('```') || INDENTED.test(line) || HEADING_IN_CONTAINER.test(line)) return undefined;
    if (SETEXT_UNDERLINE.test(line) && !previousBlank) return undefined;
    if (!maskCodeSpans(ranges, line, lineStart)) return undefined;
    const atx = ATX.exec(line);
    if (atx) {
      const content = atx[2] ?? '';
      if (!PLAIN_HEADING.test(content)) return undefined;
      headings.push({ depth: atx[1].length, text: content.trim(), line: lineNo });
    }
    previousBlank = !line.trim();
  }

  const plain = masked(text, ranges);
  const links: RawLink[] = [];
  let brackets = 0;
  let line = 1;
  let counted = 0;
  for (const m of plain.matchAll(LINK)) {
    const start = m.index!;
    if (start > 0 && !BEFORE_LINK.test(plain[start - 1])) return undefined;
    // a `|` may be a table's cell boundary, which GFM splits on before it looks for links
    if (m[0].includes('|')) return undefined;
    for (let nl = plain.indexOf('\n', counted); nl >= 0 && nl < start; nl = plain.indexOf('\n', nl + 1)) {
      line++;
      counted = nl + 1;
    }
    const labelStart = start + 1;
    const destStart = labelStart + m[1].length + 2;
    links.push({
      form: 'inline',
      image: false,
      label: text.slice(labelStart, labelStart + m[1].length),
      start,
      end: start + m[0].length,
      destStart,
      destEnd: destStart + m[2].length,
      url: m[2],
      line,
    });
    brackets += count(m[0], '[') + count(m[0], ']');
  }
  // a bracket that is not part of a plain link may be anything: a reference, a footnote, a task
  if (count(plain, '[') + count(plain, ']') !== brackets) return undefined;
  return { links, headings, anchors: [], blockIds: [] };
}
