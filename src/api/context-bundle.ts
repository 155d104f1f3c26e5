// How a context bundle is cut to its token budget (docs/search.md#context-bundles): tokens are
// estimated, never counted by a tokenizer, and notes that do not fit whole are cut at a paragraph,
// else a sentence, boundary.

/**
 * The tokens a text costs at most, estimated: one for each digit, and the UTF-8 bytes of the rest
 * divided by 2.5, rounded up. Measured against two published tokenizers (docs/search.md#context-bundles),
 * it counted at least as many tokens as either on English prose, code, CJK text, emoji and the
 * file names and dates of a bundle's entries (tokenizers split digit runs finely), and it costs
 * nothing to load.
 */
export function estimateTokens(text: string): number {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
  }
  return digits + Math.ceil((Buffer.byteLength(text, 'utf8') - digits) / 2.5);
}

/** One note offered to a bundle, in the order of its value. */
export interface Offer {
  /** The entry's first line (who the note is and why it is there). */
  head: string;
  /** The note's text, as it would be included whole. */
  body: string;
}

/** What a bundle took of an offer. */
export interface Taken {
  text: string;
  tokens: number;
  cut: boolean;
}

/** What a cut entry ends with, so a reader knows to `read` the note for the rest. */
export const CUT_MARK = '[…cut]';

/**
 * The entry for an offer within `room` tokens: whole when it fits, else cut at the last paragraph
 * (else sentence) boundary that fits, marked cut; undefined when not even its first sentence fits.
 * `cap` bounds a whole note too, so one long note does not take the whole bundle.
 */
export function takeOffer(o: Offer, room: number, cap: number): Taken | undefined {
  const limit = Math.min(room, cap);
  const whole = entry(o.head, o.body.trim());
  const cost = estimateTokens(whole);
  if (cost <= limit) return { text: whole, tokens: cost, cut: false };
  const fitting = longestFit(o, limit);
  if (fitting === undefined) return undefined;
  const text = entry(o.head, `${fitting}\n${CUT_MARK}`);
  return { text, tokens: estimateTokens(text), cut: true };
}

function entry(head: string, body: string): string {
  return body ? `\n${head}\n${body}\n` : `\n${head}\n`;
}

/**
 * The longest start of the body that ends at the end of a paragraph, a line or a sentence and fits
 * with the cut mark; undefined when none does.
 */
function longestFit(o: Offer, limit: number): string | undefined {
  const body = o.body.trim();
  const ends = boundaries(body);
  const fits = (end: number) => estimateTokens(entry(o.head, `${body.slice(0, end).trimEnd()}\n${CUT_MARK}`)) <= limit;
  // A longer start never costs fewer tokens: the last end that fits is found by halving.
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fits(ends[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo ? body.slice(0, ends[lo - 1]).trimEnd() : undefined;
}

/** Where a start of the text may end: after a sentence's closing mark, and at each line's end, in order. */
function boundaries(text: string): number[] {
  const ends = new Set<number>();
  for (const m of text.matchAll(/[.!?…。！？]+["'”’)\]]*(?=\s|$)|\n/g)) ends.add(m[0] === '\n' ? m.index : m.index + m[0].length);
  ends.add(text.length);
  // The text is trimmed: every end past its first character leaves something.
  return [...ends].filter((e) => e > 0).sort((a, b) => a - b);
}
