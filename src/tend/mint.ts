import crypto from 'node:crypto';
import { yamlEntry } from '../corpus/format.js';
import type { Note } from '../corpus/notes.js';
import type { Finding } from './check.js';
import type { Edit } from './edits.js';

const UNCLOSED_FRONTMATTER = /^---[ \t]*\r?\n/;
const EMPTY_UUID_LINE = /^uuid:[ \t]*(?:''|""|~|null)?[ \t]*\r?$/m;

/**
 * How to give a note without a uuid a fresh one, touching nothing else: a new frontmatter block
 * at the top, or a `uuid:` line as the first key of the existing one (or filling an empty `uuid:`).
 * Notes whose frontmatter cannot be read safely are reported and left alone.
 */
export function mintNote(note: Note): { finding: Finding; edits: Edit[] } | undefined {
  if (note.uuid) return undefined;
  const p = note.parsed;
  const base = { file: note.path, line: 1, label: note.title, target: note.path, uuid: null };
  const refuse = (reason: string) => ({ finding: { ...base, verdict: 'broken', reason }, edits: [] });
  if (p.yamlError) return refuse(`invalid frontmatter: ${p.yamlError}`);
  if (!p.hasFrontmatter && UNCLOSED_FRONTMATTER.test(note.raw)) return refuse('frontmatter is not closed by a --- line');

  const uuid = crypto.randomUUID();
  const entry = yamlEntry('uuid', uuid).replace(/\n$/, p.eol);
  let edit: Edit;
  let line = 1;
  if (!p.hasFrontmatter) {
    edit = { start: p.bodyOffset, end: p.bodyOffset, text: `---${p.eol}${entry}---${p.eol}` };
  } else {
    const yaml = note.raw.slice(p.yamlStart, p.yamlEnd);
    const empty = 'uuid' in p.frontmatter ? EMPTY_UUID_LINE.exec(yaml) : null;
    if ('uuid' in p.frontmatter && !empty) return refuse('uuid key is not a plain line; fill it in by hand');
    const at = p.yamlStart + (empty ? empty.index : 0);
    const lineEnd = empty ? at + empty[0].replace(/\r$/, '').length : at;
    edit = { start: at, end: lineEnd, text: empty ? entry.slice(0, -p.eol.length) : entry };
    line = note.raw.slice(0, at).split('\n').length;
  }
  return { finding: { ...base, line, verdict: 'no_uuid', fix: { uuid } }, edits: [edit] };
}
