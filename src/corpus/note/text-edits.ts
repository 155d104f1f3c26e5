/** Replace `text.slice(start, end)` with `text`; offsets refer to the original text. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * Apply non-overlapping edits; every byte outside them stays as it was. The edits are sorted once
 * and the output is built in one pass, so a note with many thousands of link edits costs its size,
 * not its size for every edit. Edits at the same offset keep their order.
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  if (!edits.length) return text;
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const e of sorted) {
    if (e.start < at || e.end < e.start) throw new Error(`overlapping text edits at ${e.start}..${e.end}`);
    parts.push(text.slice(at, e.start), e.text);
    at = e.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}
