import { FRAGMENT_HEADER } from './format.js';
import { momentMs } from './moments.js';
import type { NoteTimes } from './notes.js';

// How a note stood at a time, and when what it says holds true (docs/format.md#time). Two clocks:
// when the memory learnt or unlearnt a thing (a note's date, `superseded_at`, `archived_at`, a
// fragment's date line), and when the thing was true (`valid_from`, `valid_until`). A note that
// says nothing of either reads sensibly: it was written on its date, superseded when its
// successor was written, and true from its date until its successor became true.

/** What telling a note's times needs of it. */
export interface Timed {
  date: string;
  times: NoteTimes;
}

/** When the memory took the note in: the start of its date. */
export function recordedMs(n: Timed): number | undefined {
  return momentMs(n.date);
}

/** When the note was superseded: its `superseded_at`, else when its successor was written; undefined when it is not. */
export function supersededMs(n: Timed & { superseded_by: string | null }, successor?: Timed): number | undefined {
  if (!n.superseded_by) return undefined;
  return momentMs(n.times.superseded_at) ?? (successor ? recordedMs(successor) : undefined);
}

/** When the note was archived: its `archived_at`, else when its archived copy was made (`fileMs`). */
export function archivedMs(n: Timed, fileMs: number): number {
  return momentMs(n.times.archived_at) ?? fileMs;
}

/** When what the note says holds true: from its `valid_from` (else its date) until its `valid_until`, else until its successor's validity begins. */
export function validity(n: Timed, successor?: Timed): { from?: number; until?: number } {
  const from = momentMs(n.times.valid_from) ?? recordedMs(n);
  const until = momentMs(n.times.valid_until) ?? (successor ? validity(successor).from : undefined);
  return { from, until };
}

/** Whether the note's validity covers `at`. */
export function validAt(n: Timed, at: number, successor?: Timed): boolean {
  const v = validity(n, successor);
  return (v.from === undefined || v.from <= at) && (v.until === undefined || at < v.until);
}

/**
 * A note's body as it stood at `at`: cut before the first merge fragment dated later (fragments
 * are appended in time order). A fragment dated by a day counts from that day's start.
 */
export function bodyAsOf(body: string, at: number): string {
  for (const m of body.matchAll(FRAGMENT_HEADER)) {
    const when = momentMs(m[1]);
    if (when !== undefined && when > at) return body.slice(0, m.index).replace(/\s*$/, '\n');
  }
  return body;
}

/** Whether the note was in the memory at `at`: written by then (a note without a date always was) and not archived by then. */
export function heldAt(n: Timed, at: number, archived?: number): boolean {
  const from = recordedMs(n);
  return (from === undefined || from <= at) && (archived === undefined || at < archived);
}

/**
 * The note's `superseded_by` as it stood at `at`: null when it was superseded only later. When it
 * cannot be told when (no `superseded_at`, no successor found), it stands as it does now.
 */
export function supersededByAt(n: Timed & { superseded_by: string | null }, at: number, successor?: Timed): string | null {
  const when = supersededMs(n, successor);
  return when === undefined || when <= at ? n.superseded_by : null;
}

/** A day or moment as written when it is one, else undefined. */
const written = (text: string | null | undefined): string | undefined => (momentMs(text) === undefined ? undefined : text!.trim());

/** When the note was superseded, as written (the day or moment `supersededMs` tells); null when it is not or cannot be told. */
export function supersededWhen(n: Timed & { superseded_by: string | null }, successor?: Timed): string | null {
  if (!n.superseded_by) return null;
  return written(n.times.superseded_at) ?? written(successor?.date) ?? null;
}

/** The note's validity as written (the days or moments `validity` tells); null where it is open or cannot be told. */
export function validityWhen(n: Timed, successor?: Timed): { from: string | null; until: string | null } {
  return {
    from: written(n.times.valid_from) ?? written(n.date) ?? null,
    until: written(n.times.valid_until) ?? (successor ? validityWhen(successor).from : null),
  };
}
