import { ZkError } from '../../errors.js';
import { hint } from '../../hints.js';
import { momentMs, requireMoment } from '../note/moments.js';

// When what a note says holds true, as a write or a supersession is told it (docs/format.md#time):
// `valid_from` and `valid_until`, each a day or a moment.

export interface ValidityOptions {
  /** From when the note holds true (a day or a moment); default: its date. */
  validFrom?: string;
  /** Until when it holds true; default: until its successor's validity begins. */
  validUntil?: string;
}

/** The frontmatter keys a note gets for it. */
export type ValidityKeys = {
  valid_from?: string;
  valid_until?: string;
};

/**
 * The validity given, checked: each a day or a moment, and an end not before the start (`until`
 * may come from the note itself). Refused in one line naming the flag or argument.
 */
export function checkedValidity(o: ValidityOptions, until: string | null = null): ValidityKeys {
  const keys: ValidityKeys = {};
  if (o.validFrom !== undefined) keys.valid_from = requireMoment(o.validFrom, hint('option', 'valid-from'));
  if (o.validUntil !== undefined) keys.valid_until = requireMoment(o.validUntil, hint('option', 'valid-until'));
  const end = keys.valid_until ?? until;
  if (keys.valid_from && end && momentMs(end)! < momentMs(keys.valid_from)!) {
    throw new ZkError(
      'usage',
      `${hint('option', 'valid-until')} ${end} is before ${hint('option', 'valid-from')} ${keys.valid_from}: a note cannot stop holding true before it starts`,
    );
  }
  return keys;
}
