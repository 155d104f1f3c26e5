import { ZkError } from '../../errors.js';
import { isoDate } from './slug.js';

// When things happened, as the files say it: a day (`2026-10-01`, the day a note dates from, in
// this host's time, as note dates are) or a moment (`2026-10-01T09:30:00Z`, written by the tool
// for what it records: a supersession, an archive, a merged fragment). A day stands for its start
// when it says when something began, and for its end when it asks how things stood (`--as-of`).

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
/**
 * A date-time as ISO 8601 and YAML timestamps write it: `T` (or `t`, or spaces) between day and
 * time, seconds and their fraction optional, then a zone or none: `Z`, `+05:00`, `+0500`, `+05`,
 * spaces allowed before it (`2026-04-01 10:00:00 +05:00`).
 */
const MOMENT = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt]|[ \t]+)(\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:[ \t]*(?:([Zz])|([+-])(\d{1,2})(?::?(\d{2}))?))?$/;

/** A calendar date's day in this host's time (0:00 local), years before 100 too (which `Date` would read as 19xx); undefined for no real day. */
function localDay(y: number, m: number, d: number): Date | undefined {
  const t = new Date(2000, 0, 1);
  t.setFullYear(y, m - 1, d);
  return t.getFullYear() === y && t.getMonth() === m - 1 && t.getDate() === d ? t : undefined;
}

/** The time of a date-time's match: in its zone, else local; undefined when a field is out of range. */
function momentOf(m: RegExpExecArray): number | undefined {
  const [y, mo, d, h, mi] = [m[1], m[2], m[3], m[4], m[5]].map(Number);
  const [sec, offH, offM] = [m[6], m[10], m[11]].map((v) => Number(v ?? 0));
  const ms = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const day = localDay(y, mo, d);
  if (!day || h > 23 || mi > 59 || sec > 59 || offH > 23 || offM > 59) return undefined;
  if (!m[8] && !m[9]) {
    day.setHours(h, mi, sec, ms);
    return day.getTime();
  }
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, sec, ms);
  return t.getTime() - (m[9] === '-' ? -1 : 1) * (offH * 60 + offM) * 60_000;
}

/**
 * The time a day or moment stands for, in ms since the epoch: a day its start (local), a moment
 * itself (local when it names no zone). Undefined for anything else: a day that does not exist
 * (`2026-02-30`), a time out of range, words (`yesterday`).
 */
export function momentMs(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const t = text.trim();
  const day = DAY.exec(t);
  if (day) return localDay(+day[1], +day[2], +day[3])?.getTime();
  const m = MOMENT.exec(t);
  return m ? momentOf(m) : undefined;
}

/** The last moment a day or moment covers: a day's end (local), a moment itself. How things stood "as of" it. */
export function asOfMs(text: string): number | undefined {
  const start = momentMs(text);
  if (start === undefined || !DAY.test(text.trim())) return start;
  const [y, m, d] = text.trim().split('-').map(Number);
  const next = localDay(y, m, d)!;
  next.setDate(d + 1);
  return next.getTime() - 1;
}

/** The local day of a day or moment (`2026-12-02T23:30:00Z` is 3 December east of Greenwich); undefined for anything else. */
export function dayOf(text: string): string | undefined {
  const ms = momentMs(text);
  if (ms === undefined) return undefined;
  return DAY.test(text.trim()) ? text.trim() : isoDate(new Date(ms));
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
