import { expect } from 'vitest';

/** A moment as the tool writes it (a merge fragment's date line, superseded_at, archived_at): UTC to the second. */
export const MOMENT = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`;

/** The date or moment of every merge fragment's date line in a note's text, in order. */
export function fragmentDates(text: string): string[] {
  return [...text.matchAll(/\r?\n---\r?\n\*([0-9TZ:-]+)(?: \([^\n]*?\))?:\*/g)].map((m) => m[1]);
}

/** Checks `moment` is written as the tool writes moments and falls between `from` (ms, taken before the write) and now. */
export function expectMomentSince(moment: string | undefined, from: number): void {
  expect(moment).toMatch(new RegExp(`^${MOMENT}$`));
  const at = Date.parse(moment!);
  expect(at).toBeGreaterThanOrEqual(Math.floor(from / 1000) * 1000);
  expect(at).toBeLessThanOrEqual(Date.now());
}

/** The local day (`YYYY-MM-DD`) a moment falls on, as note dates and search's `updated` are. */
export function localDay(moment: string): string {
  const d = new Date(Date.parse(moment));
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
