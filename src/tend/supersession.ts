import { applyEdits, setKeyEdit } from '../corpus/frontmatter.js';
import type { Note } from '../corpus/notes.js';
import { rewriteNoteLocked } from '../corpus/rewrite.js';
import type { Finding } from './check.js';
import type { CorpusMap } from './corpus-map.js';

/** A note's `supersedes` that the superseded note does not answer with `superseded_by`. */
export interface Unanswered {
  finding: Finding;
  /** The superseded note, when it can be completed. */
  old?: Note;
  newUuid: string;
}

/** The line of the `supersedes:` key in a note's frontmatter. */
function supersedesLine(note: Note): number {
  const at = note.raw.slice(note.parsed.yamlStart, note.parsed.yamlEnd).search(/^supersedes[ \t]*:/m);
  return note.raw.slice(0, at < 0 ? 0 : note.parsed.yamlStart + at).split('\n').length;
}

/**
 * Supersessions left half done (a writer killed between creating the new note and marking the old
 * one): `stale` when the old note lacks `superseded_by` (repair completes it), `broken` when it
 * names another note.
 */
export function unansweredSupersessions(notes: Note[], map: CorpusMap): Unanswered[] {
  const out: Unanswered[] = [];
  for (const n of notes) {
    if (!n.uuid) continue;
    for (const uuid of n.supersedes) {
      const holders = map.holders(uuid);
      if (holders.length !== 1) continue;
      const old = holders[0];
      if (old.superseded_by?.toLowerCase() === n.uuid.toLowerCase()) continue;
      const base = { file: n.path, line: supersedesLine(n), label: 'supersedes', target: old.path, uuid: old.uuid };
      if (!old.superseded_by) {
        out.push({
          finding: { ...base, verdict: 'stale', reason: `${old.path} lacks superseded_by: ${n.uuid}`, fix: { uuid: n.uuid } },
          old, newUuid: n.uuid,
        });
      } else {
        out.push({ finding: { ...base, verdict: 'broken', reason: `${old.path} is superseded by another note (${old.superseded_by})` }, newUuid: n.uuid });
      }
    }
  }
  return out;
}

/** Give the old note its `superseded_by` (compare-and-swap; a note superseded meanwhile is left alone). */
export async function completeSupersession(root: string, u: Unanswered): Promise<boolean> {
  if (!u.old) return false;
  const change = await rewriteNoteLocked(root, u.old.path, (fresh) => {
    if (fresh.superseded_by) return undefined;
    const edit = setKeyEdit(fresh, 'superseded_by', u.newUuid);
    return edit ? applyEdits(fresh.raw, [edit]) : undefined;
  });
  return Boolean(change);
}
