/** Counts for people: `3 kept, 1 merged`, or `none` when there are none. */
export function countsText(counts: Record<string, number>, none = 'none'): string {
  return Object.entries(counts).map(([what, n]) => `${n} ${what}`).join(', ') || none;
}
