/**
 * Heading-aware reading windows over a Markdown text. Windows are [start, end) offsets that tile
 * the text: every character belongs to exactly one window, so nothing can be cut silently.
 */

export interface Window {
  start: number;
  end: number;
  /** The heading path of the section the window starts in, outermost first. */
  headings: string[];
  /**
   * When the window holds more than one section (small neighbours are read together): where each
   * starts and its heading path, in order. The first is the section of `headings`.
   */
  sections?: WindowSection[];
}

export interface WindowSection {
  start: number;
  headings: string[];
}

export const DEFAULT_WINDOW_CHARS = 6000;
export const MIN_WINDOW_CHARS = 200;

type BlockKind = 'frontmatter' | 'heading' | 'fence' | 'table' | 'paragraph';

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

/** A heading written as text underlined with `=` (level 1) or `-` (level 2). */
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
/** A paragraph line that opens a list item or a quote: an underline below it is a rule, not a heading. */
const CONTAINER = /^ {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>)/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/**
 * Text over a `===` or `---` line is a heading when it is short: a long paragraph over a rule is
 * still a heading by the letter of CommonMark, but nobody means a heading that long, and read as one
 * it could not be split between windows.
 */
function isSetextText(lines: string): boolean {
  return !CONTAINER.test(lines) && lines.length <= 200 && lines.split('\n').length <= 4;
}

const FRONTMATTER_END = /^(?:---|\.\.\.)[ \t]*$/;

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
  let current: Block | undefined = frontmatter(text);
  if (current) blocks.push(current);
  let open = false; // a paragraph or table still taking lines (no blank line yet)
  let fence: { char: string; length: number } | undefined;
  for (const [ls, le] of lines(text)) {
    if (ls < (blocks[0]?.kind === 'frontmatter' ? blocks[0].end : 0)) continue;
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
    const underline = SETEXT.exec(line);
    if (underline && open && current?.kind === 'paragraph' && isSetextText(text.slice(current.start, ls))) {
      current.kind = 'heading';
      current.level = underline[1][0] === '=' ? 1 : 2;
      current.title = text.slice(current.start, ls).replace(/\s+/g, ' ').trim();
      current.end = le;
      open = false;
    } else if (THEMATIC_BREAK.test(line)) {
      blocks.push((current = { kind: 'paragraph', start: ls, end: le }));
      open = false;
    } else if (heading) {
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

/** YAML frontmatter at the very start (`---` to `---` or `...`), with the blank lines after it. */
function frontmatter(text: string): Block | undefined {
  if (!/^---[ \t]*\n/.test(text)) return undefined;
  const all = lines(text);
  for (let i = 1; i < all.length; i++) {
    const [ls, le] = all[i];
    if (!FRONTMATTER_END.test(text.slice(ls, le).replace(/\n$/, ''))) continue;
    let end = le;
    for (let j = i + 1; j < all.length && !text.slice(all[j][0], all[j][1]).trim(); j++) end = all[j][1];
    return { kind: 'frontmatter', start: 0, end };
  }
  return undefined;
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
  // A source's frontmatter is read with the document's first section, never on its own.
  const carry = blocks[0]?.kind === 'frontmatter' && blocks.length > 1 ? blocks.shift() : undefined;
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
  if (carry && out.length) out[0].blocks.unshift(carry);
  return foldEmptyParents(out);
}

/** A heading with nothing under it but a deeper heading is read together with that subsection. */
function foldEmptyParents(list: Section[]): Section[] {
  const out: Section[] = [];
  let carry: Block[] = [];
  for (let i = 0; i < list.length; i++) {
    const s = list[i];
    const next = list[i + 1];
    const headingOnly = s.blocks.every((b) => b.kind === 'heading' || b.kind === 'frontmatter');
    if (headingOnly && next && next.headings.length > s.headings.length) {
      carry.push(...s.blocks);
      continue;
    }
    out.push({ headings: s.headings, blocks: [...carry, ...s.blocks] });
    carry = [];
  }
  return out;
}

/** A unit the packer places whole; `heading` units (and frontmatter) are never left alone at a window's end. */
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

/** The units of a section; `before` is how much of the window the section starts in is already taken by headings. */
function units(text: string, section: Section, cap: number, before = 0): Unit[] {
  // Pieces of a split paragraph leave room for the headings they may share a window with.
  const headings = section.blocks.filter((b) => b.kind === 'heading' || b.kind === 'frontmatter').reduce((n, b) => n + b.end - b.start, 0);
  const pieceCap = Math.max(cap - headings - before, Math.ceil(cap / 2));
  // The first paragraph shares its window with the headings; a later one may have a window to itself.
  const first = section.blocks.find((b) => b.kind !== 'heading' && b.kind !== 'frontmatter');
  return section.blocks.flatMap((b) => {
    const limit = b === first ? pieceCap : cap;
    return b.kind === 'paragraph' && b.end - b.start > limit
      ? splitParagraph(text, b, pieceCap)
      : [{ start: b.start, end: b.end, heading: b.kind === 'heading' || b.kind === 'frontmatter' }];
  });
}

/** A window being filled. */
interface Open {
  start: number;
  end: number;
  onlyHeadings: boolean;
  sections: WindowSection[];
}

/**
 * Greedy packing of a document's sections into windows of at most `cap` characters (a lone oversized
 * unit excepted). Neighbouring sections share a window while they fit; a section that fits in a
 * window is never cut, it starts the next window instead; a section larger than a window is cut
 * between its units, and its first part may finish the window before it.
 */
function pack(text: string, list: Section[], cap: number): Window[] {
  const out: Window[] = [];
  let w: Open | undefined;
  const flush = () => {
    if (!w) return;
    const { start, end, sections } = w;
    out.push({ start, end, headings: sections[0].headings, ...(sections.length > 1 ? { sections } : {}) });
    w = undefined;
  };
  const place = (start: number, end: number, heading: boolean, headings: string[], opensSection: boolean) => {
    if (!w) w = { start, end, onlyHeadings: heading, sections: [{ start, headings }] };
    else if (opensSection) w.sections.push({ start, headings });
    w.end = end;
    w.onlyHeadings &&= heading;
  };
  for (const s of list) {
    const start = s.blocks[0].start;
    const end = s.blocks[s.blocks.length - 1].end;
    const headingOnly = s.blocks.every((b) => b.kind === 'heading' || b.kind === 'frontmatter');
    if (end - start <= cap && (!w || end - w.start <= cap || !w.onlyHeadings)) {
      if (w && end - w.start > cap) flush();
      place(start, end, headingOnly, s.headings, true);
      continue;
    }
    const parts = units(text, s, cap, w?.onlyHeadings ? start - w.start : 0);
    // The section's headings go where its first words go.
    const lead = parts.find((u) => !u.heading) ?? parts[parts.length - 1];
    if (w && !w.onlyHeadings && lead.end - w.start > cap) flush();
    parts.forEach((u, i) => {
      if (w && !w.onlyHeadings && u.end - w.start > cap) flush();
      place(u.start, u.end, u.heading, s.headings, i === 0);
    });
  }
  flush();
  return out;
}

/**
 * The windows of a text. Sections follow the headings (ATX and setext); small neighbouring sections
 * are read together up to the cap, long ones are split between paragraphs.
 */
export function planWindows(text: string, cap = DEFAULT_WINDOW_CHARS): Window[] {
  return pack(text, sections(scanBlocks(text)), cap);
}
