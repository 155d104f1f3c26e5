/** A markdown link found in a note, outside code, to something that is not an external URL. */
export interface Link {
  label: string;
  /** The link target as written (path part, without `#fragment`). */
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
  /** Offsets of the target text inside the parentheses. */
  targetStart: number;
  targetEnd: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LINK = /(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*<?([^()\s<>]*)>?(?:\s+"[^"\n]*")?\s*\)/g;
const ANCHOR = /^[ \t]*<!--\s*uuid:\s*([0-9a-fA-F-]{8,})\s*-->/;
const EXTERNAL = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/\/)/;

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
    out.push(maskInlineCode(line));
  }
  return out.join('\n');
}

function maskInlineCode(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length));
}

/** Links to files (not external URLs, not images, not in code) with their line numbers and anchors. */
export function parseLinks(text: string): Link[] {
  const masked = maskCode(text);
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const links: Link[] = [];
  for (const m of masked.matchAll(LINK)) {
    if (m[1] === '!') continue;
    const raw = m[3];
    if (!raw || EXTERNAL.test(raw)) continue;
    const start = m.index!;
    const hash = raw.indexOf('#');
    const target = hash >= 0 ? raw.slice(0, hash) : raw;
    const fragment = hash >= 0 ? raw.slice(hash + 1) : undefined;
    const targetStart = start + m[0].indexOf(raw, m[2].length + 3);
    const linkEnd = start + m[0].length;
    let end = linkEnd;
    const anchor = ANCHOR.exec(text.slice(end, end + 200));
    const uuid = anchor ? anchor[1].toLowerCase() : undefined;
    if (anchor) end += anchor[0].length;
    links.push({
      label: text.slice(start + 1 + m[1].length, start + 1 + m[1].length + m[2].length),
      target: decodeTarget(target).replace(/^(?:\.\/)+/, ''), // `./x.md` names the same note as `x.md`
      fragment: fragment || undefined,
      uuid,
      line: lineOf(start),
      start,
      end,
      linkEnd,
      targetStart,
      targetEnd: targetStart + raw.length,
    });
  }
  return links;
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

/** A link to a note of the same folder: `name.md` with no directory part. */
export function isNoteLink(link: Link): boolean {
  return /^[^/\\]+\.md$/i.test(link.target);
}
