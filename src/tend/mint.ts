import crypto from 'node:crypto';
import { setKeyEdit } from '../corpus/note/frontmatter.js';
import type { TextEdit } from '../corpus/note/text-edits.js';
import type { Note } from '../corpus/note/notes.js';
import type { Finding } from './check.js';

const UNCLOSED_FRONTMATTER = /^---[ \t]*\r?\n/;

/**
 * How to give a note without a uuid a fresh one, touching nothing else: a new frontmatter block at
 * the top, or `uuid:` as the first key of the existing one (an empty `uuid:` is filled in). Notes
 * whose frontmatter cannot be edited safely are reported and left alone.
 */
export function mintNote(note: Note): { finding: Finding; edits: TextEdit[] } | undefined {
  if (note.uuid) return undefined;
  const p = note.parsed;
  const base = { file: note.path, line: 1, label: note.title, target: note.path, uuid: null };
  const refuse = (reason: string) => ({ finding: { ...base, verdict: 'broken', reason }, edits: [] });
  if (p.yamlError) return refuse(`invalid frontmatter: ${p.yamlError}`);
  if (!p.hasFrontmatter && UNCLOSED_FRONTMATTER.test(note.raw)) return refuse('frontmatter is not closed by a --- line');
  const current = p.frontmatter.uuid;
  if (current !== undefined && current !== null && current !== '') return refuse('uuid is not a plain value; fix it by hand');

  const uuid = crypto.randomUUID();
  const edit = setKeyEdit(note, 'uuid', uuid, { first: true });
  if (!edit) return refuse('frontmatter cannot be edited safely');
  const line = note.raw.slice(0, edit.start).split('\n').length;
  return { finding: { ...base, line, verdict: 'no_uuid', fix: { uuid } }, edits: [edit] };
}
