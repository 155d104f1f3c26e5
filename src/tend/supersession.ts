import { setKeyEdit } from '../corpus/note/frontmatter.js';
import { applyEdits } from '../corpus/note/text-edits.js';
import { rewriteNoteLocked } from '../corpus/ops/rewrite.js';
import type { Finding } from './check.js';
import type { CorpusMap } from './corpus-map.js';
import type { NoteFacts } from '../corpus/graph/facts.js';

/** A note's `supersedes` that the superseded note does not answer with `superseded_by`. */
export interface Unanswered {
  finding: Finding;
  /** The superseded note, when it can be completed. */
  old?: NoteFacts;
  newUuid: string;
  /** The `superseded_by` the old note has now and that the fix replaces (a successor that went to the archive). */
  replaces?: string;
}

/**
 * Live notes superseded by a note that is no longer live (it was archived): `stale` when the
 * archived successor was itself replaced by a live note (repair points `superseded_by` at it),
 * `broken` when nothing current replaces the note any more (it may be the current belief again).
 */
function strandedSupersessions(notes: NoteFacts[], map: CorpusMap): Unanswered[] {
  const out: Unanswered[] = [];
  for (const old of notes) {
    const by = old.superseded_by?.toLowerCase();
    if (!by || map.holders(by).length) continue;
    const archived = map.archivedByUuid(by);
    const next = archived && map.successor(archived);
    const base = { file: old.path, line: old.lines.superseded_by, label: 'superseded_by', target: archived ? `.archive/${archived.path}` : by, uuid: by };
    if (next?.uuid) {
      out.push({
        finding: { ...base, verdict: 'stale', reason: `its successor was archived; the current note is ${next.path}`, fix: { uuid: next.uuid.toLowerCase() } },
        old, newUuid: next.uuid, replaces: by,
      });
    } else {
      const where = archived ? `was archived as .archive/${archived.path}` : 'is in no note';
      out.push({ finding: { ...base, verdict: 'broken', reason: `superseded by ${by}, which ${where}: nothing current replaces this note` }, newUuid: by });
    }
  }
  return out;
}

/**
 * Supersessions that need care. Left half done (a writer killed between creating the new note and
 * marking the old one): `stale` when the old note lacks `superseded_by` (repair completes it),
 * `broken` when it names another note. Stranded: the note that replaced this one was archived
 * (see strandedSupersessions).
 */
export function unansweredSupersessions(notes: NoteFacts[], map: CorpusMap): Unanswered[] {
  const out: Unanswered[] = [];
  for (const n of notes) {
    if (!n.uuid) continue;
    for (const uuid of n.supersedes) {
      const holders = map.holders(uuid);
      if (holders.length !== 1) continue;
      const old = holders[0];
      if (old.superseded_by?.toLowerCase() === n.uuid.toLowerCase()) continue;
      const base = { file: n.path, line: n.lines.supersedes, label: 'supersedes', target: old.path, uuid: old.uuid };
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
  return [...out, ...strandedSupersessions(notes, map)];
}

/** Give the old note its `superseded_by` (compare-and-swap; a note superseded meanwhile is left alone). */
export async function completeSupersession(root: string, u: Unanswered): Promise<boolean> {
  if (!u.old) return false;
  const change = await rewriteNoteLocked(root, u.old.path, (fresh) => {
    // Only what was judged: a note with no successor yet, or one still pointing at the archived one.
    if ((fresh.superseded_by?.toLowerCase() ?? undefined) !== u.replaces) return undefined;
    const edit = setKeyEdit(fresh, 'superseded_by', u.newUuid);
    return edit ? applyEdits(fresh.raw, [edit]) : undefined;
  });
  return Boolean(change);
}
