/**
 * Heading-aware reading windows over a Markdown text. Windows are [start, end) offsets that tile
 * the text: every character belongs to exactly one window, so nothing can be cut silently.
 */

export interface Window {
  start: number;
  end: number;
  /** The heading path of the section the window belongs to, outermost first. */
  headings: string[];
}

export const DEFAULT_WINDOW_CHARS = 6000;
export const MIN_WINDOW_CHARS = 200;

type BlockKind = 'heading' | 'fence' | 'table' | 'paragraph';

/** A run of lines that reads as one unit; its trailing blank lines belong to it. */
interface Block {
  kind: BlockKind;
  start: number;
  end: number;
  level?: number;
  title?: string;
}

interface Section {
  headings: string[];
  blocks: Block[];
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$|^\s*\|\s*:?-+:?\s*\|\s*$/;

/** The lines of a text as [start, end) offsets, each end including its newline. */
function lines(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl + 1;
    out.push([at, end]);
    at = end;
  }
  return out;
}

/** Split a text into blocks that tile it: headings, fenced code, tables and paragraphs. */
export function scanBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let open = false; // a paragraph or table still taking lines (no blank line yet)
  let fence: { char: string; length: number } | undefined;
  for (const [ls, le] of lines(text)) {
    const line = text.slice(ls, le).replace(/\n$/, '');
    if (fence && current) {
      current.end = le;
      const close = FENCE.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.length && !line.trim().slice(close[1].length).trim()) fence = undefined;
      continue;
    }
    if (!line.trim()) {
      if (current) current.end = le;
      else blocks.push((current = { kind: 'paragraph', start: ls, end: le }));
      open = false;
      continue;
    }
    const heading = ATX.exec(line);
    const opener = FENCE.exec(line);
    if (heading) {
      blocks.push((current = { kind: 'heading', start: ls, end: le, level: heading[1].length, title: (heading[2] ?? '').trim() }));
      open = false;
    } else if (opener && !(opener[1][0] === '`' && line.slice(line.indexOf('`') + opener[1].length).includes('`'))) {
      blocks.push((current = { kind: 'fence', start: ls, end: le }));
      fence = { char: opener[1][0], length: opener[1].length };
      open = false;
    } else if (open && current) {
      current.end = le;
      if (TABLE_DELIMITER.test(line) && line.includes('|')) current.kind = 'table';
    } else {
      blocks.push((current = { kind: 'paragraph', start: ls, end: le }));
      open = true;
    }
  }
  return mergeLeadingBlank(text, blocks);
}

/** Blank lines at the very start of a text have no block of their own: they join the first one. */
function mergeLeadingBlank(text: string, blocks: Block[]): Block[] {
  if (blocks.length > 1 && !text.slice(blocks[0].start, blocks[0].end).trim()) {
    blocks[1].start = blocks[0].start;
    return blocks.slice(1);
  }
  return blocks;
}

/** Group blocks into sections, one per heading, each with the heading path above it. */
function sections(blocks: Block[]): Section[] {
  const out: Section[] = [];
  const stack: Array<{ level: number; title: string }> = [];
  for (const b of blocks) {
    if (b.kind === 'heading') {
      while (stack.length && stack[stack.length - 1].level >= (b.level ?? 1)) stack.pop();
      stack.push({ level: b.level ?? 1, title: b.title || '(untitled)' });
      out.push({ headings: stack.map((h) => h.title), blocks: [b] });
    } else if (out.length) {
      out[out.length - 1].blocks.push(b);
    } else {
      out.push({ headings: [], blocks: [b] });
    }
  }
  return foldEmptyParents(out);
}

/** A heading with nothing under it but a deeper heading is read together with that subsection. */
function foldEmptyParents(list: Section[]): Section[] {
  const out: Section[] = [];
  let carry: Block[] = [];
  for (let i = 0; i < list.length; i++) {
    const s = list[i];
    const next = list[i + 1];
    const headingOnly = s.blocks.length === 1 && s.blocks[0].kind === 'heading';
    if (headingOnly && next && next.headings.length > s.headings.length) {
      carry.push(...s.blocks);
      continue;
    }
    out.push({ headings: s.headings, blocks: [...carry, ...s.blocks] });
    carry = [];
  }
  return out;
}

/** A unit the packer places whole; `heading` units are never left alone at a window's end. */
interface Unit {
  start: number;
  end: number;
  heading: boolean;
}

/** Break an oversized paragraph into lines, and an oversized line at spaces (or, failing that, anywhere). */
function splitParagraph(text: string, b: Block, cap: number): Unit[] {
  const units: Unit[] = [];
  for (const [ls, le] of lines(text.slice(b.start, b.end))) {
    let start = b.start + ls;
    const end = b.start + le;
    while (end - start > cap) {
      let cut = text.lastIndexOf(' ', start + cap - 1);
      if (cut <= start) cut = start + cap;
      else cut += 1;
      if (/[\uDC00-\uDFFF]/.test(text[cut] ?? '')) cut -= 1; // never split a surrogate pair
      units.push({ start, end: cut, heading: false });
      start = cut;
    }
    units.push({ start, end, heading: false });
  }
  // Blank lines after the paragraph stay with its last piece.
  for (let i = units.length - 1; i > 0 && !text.slice(units[i].start, units[i].end).trim(); i--) {
    units[i - 1].end = units[i].end;
    units.pop();
  }
  return units;
}

function units(text: string, section: Section, cap: number): Unit[] {
  // Pieces of a split paragraph leave room for the headings they may share a window with.
  const headings = section.blocks.filter((b) => b.kind === 'heading').reduce((n, b) => n + b.end - b.start, 0);
  const pieceCap = Math.max(cap - headings, Math.ceil(cap / 2));
  return section.blocks.flatMap((b) =>
    b.kind === 'paragraph' && b.end - b.start > cap
      ? splitParagraph(text, b, pieceCap)
      : [{ start: b.start, end: b.end, heading: b.kind === 'heading' }],
  );
}

/** Greedy packing of a section's units into windows of at most `cap` characters (a lone oversized unit excepted). */
function pack(list: Unit[], cap: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = list[0].start;
  let end = start;
  let onlyHeadings = true;
  for (const u of list) {
    if (end > start && !onlyHeadings && u.end - start > cap) {
      out.push([start, end]);
      start = u.start;
      onlyHeadings = true;
    }
    end = u.end;
    onlyHeadings &&= u.heading;
  }
  out.push([start, end]);
  return out;
}

/** The windows of a text: one per section, long sections split between paragraphs. */
export function planWindows(text: string, cap = DEFAULT_WINDOW_CHARS): Window[] {
  const windows: Window[] = [];
  for (const s of sections(scanBlocks(text))) {
    for (const [start, end] of pack(units(text, s, cap), cap)) windows.push({ start, end, headings: s.headings });
  }
  return windows;
}
