import { FRAGMENT_HEADER } from '../corpus/note/format.js';
import { dayOf } from '../corpus/note/moments.js';
import { escapeRegExp } from '../corpus/regex.js';

/** Characters either side of the centre of an excerpt: room for a sentence or two. */
const RADIUS = 150;

/** A line that only draws (a thematic break, a setext heading's underline): no words to show. */
const DRAWN_LINE = /^[ \t]*([-=*_])(?:[ \t]*\1)*[ \t]*$/gm;

/** Two window weights closer than this are equal: sums kept by adding and subtracting drift. */
const SAME = 1e-9;

/** A body as a snippet reads it: the text of each passage without fragment headers, and where each starts. */
interface Passages {
  text: string;
  /** Offsets in `text` where the own text (0) and each merged fragment's text begin, in order. */
  starts: number[];
}

/**
 * A note's own text after its `# Title` line (shown beside every hit already), then each merged
 * fragment's text, joined by blank lines: no `---`, no date line.
 */
function passages(body: string): Passages {
  const parts: string[] = [];
  const starts: number[] = [];
  let length = 0;
  let from = /^\s*# [^\n]*\n/.exec(body)?.[0].length ?? 0;
  const add = (part: string) => {
    starts.push(length);
    parts.push(part);
    length += part.length + 2;
  };
  for (const m of body.matchAll(FRAGMENT_HEADER)) {
    add(body.slice(from, m.index));
    from = m.index + m[0].length;
  }
  add(body.slice(from));
  return { text: parts.join('\n\n'), starts };
}

/** When a note last changed in substance: the date of its last merge fragment, else its own date. */
export function lastUpdated(body: string, date: string): string {
  let last: string | undefined;
  for (const m of body.matchAll(FRAGMENT_HEADER)) last = m[1];
  return (last && dayOf(last)) ?? date;
}

/** One term of the query at one place of the text. */
interface Spot {
  at: number;
  w: number;
}

/** A text that ends in a letter, digit or mark: what is after it does not start a word. */
const ENDS_IN_WORD = /[\p{L}\p{N}\p{M}]$/u;

/** Whether a word starts at `at`: what precedes it is no letter, digit or mark (ASCII told apart without a regex, for speed). */
function startsWord(text: string, at: number): boolean {
  if (at === 0) return true;
  const c = text.charCodeAt(at - 1);
  if (c < 128) return !((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122));
  return !ENDS_IN_WORD.test(text.slice(Math.max(0, at - 2), at));
}

/**
 * Every place a word starts with one of the terms, in text order: one pass over the text whatever
 * the number of terms (the search counts words by how they start too: "art" is not in "party").
 */
function* spotsOf(text: string, terms: readonly string[], weight: (term: string) => number): Generator<Spot> {
  // Longest first: where two terms start at one place, the longer one is the word found there.
  const wanted = [...new Set(terms.filter(Boolean))].sort((a, b) => b.length - a.length);
  if (!wanted.length) return;
  const weights = wanted.map((t) => weight(t));
  // Not the `u` flag: it makes a case-insensitive scan of a large note many times slower.
  const re = new RegExp(wanted.map((t) => `(${escapeRegExp(t)})`).join('|'), 'gi');
  for (const m of text.matchAll(re)) {
    if (!startsWord(text, m.index)) continue;
    yield { at: m.index, w: weights[m.findIndex((g, i) => i > 0 && g !== undefined) - 1] };
  }
}

/** The stretch of text, at most two radii long, where the query's terms weigh most. */
interface Best {
  from: number;
  to: number;
}

/**
 * Slide a window two radii wide along the spots, keeping the heaviest. Of equally heavy ones the
 * one reaching into the later passage wins (a fact a merge updated shows its newest value); within
 * one passage the first does. Only the spots inside the window are kept: memory does not grow
 * with the note.
 */
function heaviestWindow(spots: Iterable<Spot>, starts: number[]): Best | undefined {
  const inside: Spot[] = [];
  let head = 0;
  let sum = 0;
  let passage = 0;
  let best: (Best & { sum: number; passage: number }) | undefined;
  for (const s of spots) {
    inside.push(s);
    sum += s.w;
    while (s.at - inside[head].at > RADIUS * 2) sum -= inside[head++].w;
    // Alone in the window, the spot is the sum: what adding and subtracting drifted is dropped.
    if (head === inside.length - 1) sum = s.w;
    if (head > 1024) inside.splice(0, head), (head = 0);
    while (passage + 1 < starts.length && starts[passage + 1] <= s.at) passage++;
    if (!best || sum > best.sum + SAME || (sum > best.sum - SAME && passage > best.passage)) {
      best = { from: inside[head].at, to: s.at, sum, passage };
    }
  }
  return best && { from: best.from, to: best.to };
}

/** Where the passage holding offset `at` begins. */
function passageStart(starts: number[], at: number): number {
  let start = 0;
  for (const s of starts) if (s <= at) start = s;
  return start;
}

/**
 * A one-line excerpt of a note (docs/search.md#snippets): where the query's terms cluster most
 * densely (weighted by how rare each term is), in the note's own text or any merged fragment
 * alike; of equally good places, the latest fragment's. Shown without fragment headers (the hit
 * carries its date) and without lines that only draw; an ellipsis marks a cut.
 */
export function snippet(body: string, terms: readonly string[], weight: (term: string) => number = () => 1): string {
  const { text, starts } = passages(body);
  const best = heaviestWindow(spotsOf(text, terms, weight), starts);
  const center = best ? Math.round((best.from + best.to) / 2) : 0;
  // Cut short of the note's start, it starts at the passage holding the match, not mid-way
  // through the one before.
  const start = !best || center <= RADIUS ? 0 : Math.max(passageStart(starts, best.from), center - RADIUS);
  const end = Math.min(text.length, start + 2 * RADIUS);
  const excerpt = text.slice(start, end).replace(DRAWN_LINE, '').replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${excerpt}${end < text.length ? '…' : ''}`;
}
