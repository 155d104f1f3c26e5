import { yamlEntry } from './format.js';
import type { Note } from './notes.js';
import type { TextEdit } from './text-edits.js';
import { escapeRegExp } from '../regex.js';

/** A line that continues the value of the key above it (indented, or a block-sequence item). */
const CONTINUATION = /^(?:[ \t]+\S|-(?:[ \t]|$))/;

/**
 * The edit that sets one top-level frontmatter key, leaving every other byte alone: the key's own
 * lines are replaced when it exists, otherwise it is added as the last key (the first with
 * `first`, as for a uuid); a note without frontmatter gets a block at the top. The note's line
 * ending style is kept. Undefined when the frontmatter cannot be edited safely (invalid YAML).
 */
export function setKeyEdit(note: Note, key: string, value: unknown, o: { first?: boolean } = {}): TextEdit | undefined {
  const p = note.parsed;
  if (p.yamlError) return undefined;
  const entry = yamlEntry(key, value).replace(/\n/g, p.eol);
  if (!p.hasFrontmatter) return { start: p.bodyOffset, end: p.bodyOffset, text: `---${p.eol}${entry}---${p.eol}` };
  const span = keySpan(note, key);
  if (!span) {
    const at = o.first ? p.yamlStart : p.yamlEnd;
    return { start: at, end: at, text: entry };
  }
  return { ...span, text: entry };
}

/**
 * The edit that removes one top-level frontmatter key (its lines, continuation lines included),
 * leaving every other byte alone; an empty edit when the note has no such key. Undefined when the
 * frontmatter cannot be edited safely (invalid YAML).
 */
export function removeKeyEdit(note: Note, key: string): TextEdit | undefined {
  if (note.parsed.yamlError) return undefined;
  const span = note.parsed.hasFrontmatter ? keySpan(note, key) : undefined;
  return span ? { ...span, text: '' } : { start: note.parsed.bodyOffset, end: note.parsed.bodyOffset, text: '' };
}

/** Where a top-level key's lines lie in the frontmatter, its continuation lines included. */
function keySpan(note: Note, key: string): { start: number; end: number } | undefined {
  const p = note.parsed;
  const raw = note.raw;
  const lines: { start: number; end: number; text: string }[] = [];
  for (let at = p.yamlStart; at < p.yamlEnd; ) {
    const nl = raw.indexOf('\n', at);
    const end = nl < 0 || nl >= p.yamlEnd ? p.yamlEnd : nl + 1;
    lines.push({ start: at, end, text: raw.slice(at, end).replace(/\r?\n$/, '') });
    at = end;
  }
  const keyLine = new RegExp(`^${escapeRegExp(key)}[ \\t]*:`);
  const i = lines.findIndex((l) => keyLine.test(l.text));
  if (i < 0) return undefined;
  let j = i + 1;
  while (j < lines.length && CONTINUATION.test(lines[j].text)) j++;
  return { start: lines[i].start, end: lines[j - 1].end };
}
