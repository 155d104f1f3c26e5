import { settings } from '../../context.js';
import { ZkError } from '../../errors.js';

/** What a source cannot hold: line breaks and other control characters, and a header's delimiters. */
const NOT_IN_SOURCE = /[\p{Cc}\p{Zl}\p{Zp}()*]/u;

/**
 * The source of a write or merge: the flag, else ZK_MEMORY_SOURCE. It goes into a fragment's
 * header `*DATE (source):*`, so it must be one line of plain text: a newline, a control character
 * or the header's own delimiters would let a source forge a second fragment.
 */
export function defaultSource(flag?: string): string | undefined {
  const s = (flag ?? settings().source() ?? '').trim();
  if (!s) return undefined;
  if (NOT_IN_SOURCE.test(s)) {
    throw new ZkError('usage', `invalid source ${JSON.stringify(s)}: a source is one line of plain text without control characters, "(", ")" or "*"`);
  }
  return s;
}

/**
 * A note's author (written by hand, it may hold anything) as the source of what the tool writes
 * on its behalf (a gardener's fold, a split's children): what a source cannot hold becomes a space.
 */
export function sourceFromAuthor(author: string | null | undefined): string | undefined {
  return author?.replace(new RegExp(`\\s*${NOT_IN_SOURCE.source}+\\s*`, 'gu'), ' ').trim() || undefined;
}
