import { settings } from '../context.js';

export const DEFAULT_SEGMENT_CHARS = 24_000;

/** Segment size in characters: ZK_MEMORY_SEGMENT_CHARS, default 24,000. */
export function segmentChars(): number {
  return settings().segmentChars();
}

/** Where text may be cut, best first: blank lines, line ends, sentence ends, spaces. */
const BOUNDARIES = [/\n(?:[ \t]*\n)+/g, /\n/g, /(?<=[.!?…。！？])\s+/g, /\s+/g];

/** Pieces of `text` that end right after each boundary; joined, they are `text` again. */
function cutAfter(text: string, boundary: RegExp): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (const m of text.matchAll(boundary)) {
    const end = m.index + m[0].length;
    if (end > start && end < text.length) {
      pieces.push(text.slice(start, end));
      start = end;
    }
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** The last resort: fixed-size pieces, never cutting a surrogate pair in two. */
function hardSplit(text: string, max: number): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + max);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && end - start > 1 && code >= 0xd800 && code <= 0xdbff) end--;
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/** Greedily fill segments with whole pieces; a piece too big on its own is split by `splitBig`. */
function pack(pieces: string[], max: number, splitBig: (piece: string) => string[]): string[] {
  const out: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current.length + piece.length <= max) {
      current += piece;
      continue;
    }
    if (current) out.push(current);
    const parts = piece.length <= max ? [piece] : splitBig(piece);
    out.push(...parts.slice(0, -1));
    current = parts[parts.length - 1] ?? '';
  }
  if (current) out.push(current);
  return out;
}

function splitAt(text: string, max: number, level: number): string[] {
  if (text.length <= max) return [text];
  if (level >= BOUNDARIES.length) return hardSplit(text, max);
  return pack(cutAfter(text, BOUNDARIES[level]), max, (piece) => splitAt(piece, max, level + 1));
}

/**
 * Split text into segments of at most `max` characters on paragraph boundaries; a paragraph that
 * is too long alone is split on lines, then sentences, then spaces, then anywhere. Nothing is
 * dropped: the segments joined are exactly the input.
 */
export function segmentText(text: string, max = segmentChars()): string[] {
  return text ? splitAt(text, Math.max(1, max), 0) : [];
}

/**
 * Split a sequence of blocks (messages) joined by `separator` into segments that keep whole blocks
 * together wherever they fit; a block too long alone is split like text. The segments joined are
 * exactly `blocks.join(separator)`.
 */
export function segmentBlocks(blocks: string[], separator: string, max = segmentChars()): string[] {
  const size = Math.max(1, max);
  const pieces = blocks.map((b, i) => (i < blocks.length - 1 ? b + separator : b)).filter(Boolean);
  return pack(pieces, size, (piece) => splitAt(piece, size, 0));
}
