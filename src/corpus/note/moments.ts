import { ZkError } from '../../errors.js';
import { isoDate } from './slug.js';

// When things happened, as the files say it: a day (`2026-10-01`, the day a note dates from, in
// this host's time, as note dates are) or a moment (`2026-10-01T09:30:00Z`, written by the tool
// for what it records: a supersession, an archive, a merged fragment). A day stands for its start
// when it says when something began, and for its end when it asks how things stood (`--as-of`).

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MOMENT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;

/** The start of a local day, or undefined when `text` is no real day. */
function dayStart(m: RegExpExecArray): number | undefined {
  const d = new Date(+m[1], +m[2] - 1, +m[3]);
  return d.getFullYear() === +m[1] && d.getMonth() === +m[2] - 1 && d.getDate() === +m[3] ? d.getTime() : undefined;
}

/**
 * The time a day or moment stands for, in ms since the epoch: a day its start (local), a moment
 * itself (local when it names no zone). Undefined for anything else.
 */
export function momentMs(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const t = text.trim();
  const day = DAY.exec(t);
  if (day) return dayStart(day);
  const m = MOMENT.exec(t);
  if (!m || dayStart(m) === undefined) return undefined;
  const ms = Date.parse(m[7] ? t.replace(' ', 'T') : `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The last moment a day or moment covers: a day's end (local), a moment itself. How things stood "as of" it. */
export function asOfMs(text: string): number | undefined {
  const start = momentMs(text);
  if (start === undefined || !DAY.test(text.trim())) return start;
  const [y, m, d] = text.trim().split('-').map(Number);
  return new Date(y, m - 1, d + 1).getTime() - 1;
}

/** The local day of a day or moment (`2026-12-02T23:30:00Z` is 3 December east of Greenwich); undefined for anything else. */
export function dayOf(text: string): string | undefined {
  if (DAY.test(text.trim())) return text.trim();
  const ms = momentMs(text);
  return ms === undefined ? undefined : isoDate(new Date(ms));
}

/** A moment as the tool writes it: UTC to the second, `2026-12-02T04:51:07Z`. */
export function momentText(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The time a day or moment asked about stands for (`--as-of`, `--valid-at`: its end, see asOfMs), checked; refused in one line. */
export function timeAsked(value: string, what: string): number {
  return asOfMs(requireMoment(value, what))!;
}

/** A day or moment given on the command line or as an MCP argument, checked; refused in one line. */
export function requireMoment(value: string, what: string): string {
  const t = value.trim();
  if (momentMs(t) === undefined) {
    throw new ZkError('usage', `invalid ${what}: ${JSON.stringify(value.slice(0, 60))} (expected YYYY-MM-DD or a date-time such as 2026-10-01T09:30:00Z)`);
  }
  return t;
}
