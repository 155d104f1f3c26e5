import { ZkError } from '../../errors.js';

export const MAX_SLUG = 80;
/**
 * File names are limited to 255 bytes: the slug keeps room for the date prefix (9 bytes), a
 * uniqueness suffix such as `-12` and `.md`.
 */
export const MAX_SLUG_BYTES = 200;

// Latin letters whose diacritic-free form is not reachable through Unicode decomposition.
const LATIN_SPECIAL: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ħ: 'h',
  ı: 'i',
  ŧ: 't',
};

const LATIN = /\p{Script=Latin}/u;
const MARK = /\p{M}/u;

/** Drop the diacritics of Latin letters; marks on letters of other scripts stay. */
function stripLatinDiacritics(text: string): string {
  let out = '';
  let baseIsLatin = false;
  for (const ch of text.normalize('NFD')) {
    if (MARK.test(ch)) {
      if (!baseIsLatin) out += ch;
      continue;
    }
    baseIsLatin = LATIN.test(ch);
    out += LATIN_SPECIAL[ch] ?? ch;
  }
  return out.normalize('NFC');
}

/** The most characters of a slug a title makes: a few words, so file names stay readable. */
export const MAX_TITLE_SLUG = 60;

// An apostrophe between two letters or digits (`dana's`, `don’t`) joins the word instead of splitting it.
const INNER_APOSTROPHE = /(?<=[\p{L}\p{N}\p{M}])['\u2019](?=[\p{L}\p{N}\p{M}])/gu;

/**
 * Lowercase, Latin without diacritics, other scripts' letters and digits kept, every other run of
 * characters one `-`, at most `max` characters cut at a `-` boundary (and 200 bytes). With
 * `apostrophes` 'join', an apostrophe inside a word is dropped rather than made a `-`.
 */
function slugOf(text: string, max: number, apostrophes: 'join' | 'split'): string {
  const joined = apostrophes === 'join' ? text.replace(INNER_APOSTROPHE, '') : text;
  const lowered = stripLatinDiacritics(joined.toLowerCase()).toLowerCase();
  return capSlug(lowered.replace(/[^\p{L}\p{N}\p{M}]+/gu, '-').replace(/^-+|-+$/g, ''), max);
}

/** A slug cut to at most `max` characters at a word boundary, and to 200 UTF-8 bytes. */
export function capSlug(slug: string, max: number): string {
  let capped = slug;
  if ([...capped].length > max) capped = cutAtBoundary(capped, max);
  if (Buffer.byteLength(capped, 'utf8') > MAX_SLUG_BYTES) capped = cutToBytes(capped, MAX_SLUG_BYTES);
  return capped;
}

/** A slug as given (`write SLUG`, `--slug`, a judge's slug): at most 80 characters. Returns '' when nothing usable is left. */
export function slugify(text: string): string {
  return slugOf(text, MAX_SLUG, 'join');
}

/**
 * The slug a title (or other text a pipeline names a note after) makes: the same rule, cut at a
 * word boundary within 60 characters. Every note named after its title gets its slug here.
 */
export function titleSlug(title: string): string {
  return slugOf(title, MAX_TITLE_SLUG, 'join');
}

/**
 * The slug the earlier rule made of a text (an apostrophe split the word, 80 characters): the names
 * notes written before keep, so a ref typed as that text still finds them (see refs.ts).
 */
export function earlierSlug(text: string): string {
  return slugOf(text, MAX_SLUG, 'split');
}

/** The longest head of a slug within `max` UTF-8 bytes, cut between characters (at a `-` if one is near). */
function cutToBytes(slug: string, max: number): string {
  const chars = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(slug)].map((s) => s.segment);
  let n = 0;
  let bytes = 0;
  while (n < chars.length && bytes + Buffer.byteLength(chars[n], 'utf8') <= max) bytes += Buffer.byteLength(chars[n++], 'utf8');
  const head = chars.slice(0, n).join('');
  const dash = chars[n] === '-' ? -1 : head.lastIndexOf('-');
  return (dash > 0 ? head.slice(0, dash) : head).replace(/-+$/, '');
}

function cutAtBoundary(slug: string, max: number): string {
  const chars = [...slug];
  const head = chars.slice(0, max).join('');
  // If the cut fell inside a word, go back to the last '-' (unless the first word alone is too long).
  if (chars[max] !== '-') {
    const dash = head.lastIndexOf('-');
    if (dash > 0) return head.slice(0, dash);
  }
  return head.replace(/-+$/, '');
}

/** The slug of a text (by `make`, slugify unless told), or the `invalid slug` refusal when nothing is left. */
export function requireSlug(text: string, make: (text: string) => string = slugify): string {
  const slug = make(text);
  if (!slug) throw new ZkError('invalid_slug', `invalid slug: ${JSON.stringify(text)} has no letters or digits`);
  return slug;
}

/** A slug already carrying a YYYYMMDD- date prefix. */
export const DATED_STEM = /^(\d{4})(\d{2})(\d{2})-(.+)$/;

/** `2026-11-30` from a Date, in local time. */
export function isoDate(d: Date): string {
  const y = d.getFullYear();
  const m = String(d.getMonth() + 1).padStart(2, '0');
  const day = String(d.getDate()).padStart(2, '0');
  return `${y}-${m}-${day}`;
}

/** Validate a `--date YYYY-MM-DD` value. */
export function parseDateOption(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (m) {
    const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
    if (d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3]) return value;
  }
  throw new ZkError('usage', `invalid date: ${JSON.stringify(value)} (expected YYYY-MM-DD)`);
}

/** The stem of a note: `20261130-judy` from date `2026-11-30` and slug `judy`. */
export function stemFor(date: string, slug: string): string {
  return `${date.replace(/-/g, '')}-${slug}`;
}
