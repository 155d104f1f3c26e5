import { settings } from '../context.js';
import { ZkError } from '../errors.js';

/**
 * The source of a write or merge: the flag, else ZK_MEMORY_SOURCE. It goes into a fragment's
 * header `*DATE (source):*`, so it must be one line of plain text: a newline, a control character
 * or the header's own delimiters would let a source forge a second fragment.
 */
export function defaultSource(flag?: string): string | undefined {
  const s = (flag ?? settings().source() ?? '').trim();
  if (!s) return undefined;
  if (/[\p{Cc}\p{Zl}\p{Zp}]/u.test(s) || /[()*]/.test(s)) {
    throw new ZkError('usage', `invalid source ${JSON.stringify(s)}: a source is one line of plain text without control characters, "(", ")" or "*"`);
  }
  return s;
}
