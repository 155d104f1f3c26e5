import { bodyAsOf, supersededByAt } from './as-of.js';
import { removeKeyEdit } from './frontmatter.js';
import { noteFromText, type Note } from './notes.js';
import { applyEdits, type TextEdit } from './text-edits.js';

// A note as it stood at a time (docs/format.md#as-of-a-date), built from its file as it is now:
// the fragments merged later cut off, and no `superseded_by` when it was superseded only later.

/** `note` as it stood at `at`; `successor`, the note its `superseded_by` names, tells when it was superseded. */
export function noteAt(note: Note, at: number, successor?: Note): Note {
  const p = note.parsed;
  const edits: TextEdit[] = [];
  if (note.superseded_by && supersededByAt(note, at, successor) === null) {
    for (const key of ['superseded_by', 'superseded_at']) {
      const edit = removeKeyEdit(note, key);
      if (edit) edits.push(edit);
    }
  }
  const body = bodyAsOf(p.body, at);
  if (body !== p.body) edits.push({ start: p.bodyOffset, end: note.raw.length, text: body });
  if (!edits.length) return note;
  const then = noteFromText('', note.file, applyEdits(note.raw, edits), note.size, note.mtimeMs);
  // A frontmatter that cannot be edited keeps its key: the answer still says what stood then.
  return { ...then, path: note.path, slug: note.slug, superseded_by: supersededByAt(note, at, successor) };
}
