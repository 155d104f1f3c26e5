import { noteValidity, type NoteFacts, type UnreadDate } from '../corpus/graph/facts.js';
import type { Finding } from './check.js';

// Dates the notes hold that are no day or moment (docs/format.md#time): `2026-02-30`,
// `yesterday`, a list. Each is read as if the key were absent, which changes what the time
// questions answer, so `check` names every one as `bad_date`, on its key's line; a person
// corrects it.

/** What the note's date says, or `none` when it has no date. */
function dateOr(n: NoteFacts, said: (date: string) => string, none: string): string {
  const { date } = noteValidity(n);
  return date ? said(date) : none;
}

/** How a note is read while the key cannot be. */
const READ_AS: Record<UnreadDate['key'], (n: NoteFacts) => string> = {
  date: (n) => dateOr(n, (date) => `read as the file name's date, ${date}`, 'read as undated, as if the note had always been held'),
  superseded_at: () => "read as superseded when its successor was written (the successor's date)",
  archived_at: () => 'read as archived when its archived copy was made',
  valid_from: (n) => dateOr(n, (date) => `read as true from its date, ${date}`, 'read as true from its date, which it has none of'),
  valid_until: () => "read as true until its successor's validity begins",
};

/** Every date of the live notes that cannot be read. */
export function unreadDateFindings(notes: readonly NoteFacts[]): Finding[] {
  return notes.flatMap((n) =>
    n.unreadDates.map(
      (d): Finding => ({
        file: n.path,
        line: d.line,
        label: d.key,
        target: d.value,
        uuid: n.uuid || null,
        verdict: 'bad_date',
        reason: `${d.key} ${JSON.stringify(d.value)} is no date (YYYY-MM-DD, or a date-time such as 2026-10-01T09:30:00Z or 2026-10-01 09:30:00 +05:00); ${READ_AS[d.key](n)}`,
      }),
    ),
  );
}
