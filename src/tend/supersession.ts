import { supersededKeys, withKeys } from '../corpus/ops/keys.js';
import { rewriteNoteLocked } from '../corpus/ops/rewrite.js';
import type { Finding } from './check.js';
import type { CorpusMap } from './corpus-map.js';
import type { NoteFacts } from '../corpus/graph/facts.js';
import { forkedUuids, forks } from './forks.js';

/** A supersession that needs care, and what repair does about it. */
export interface Unanswered {
  finding: Finding;
  /**
   * The note whose `superseded_by` repair sets to `to` (removes, when `to` is undefined), if it
   * still has the value it was judged by (`was`, lowercase; undefined for none).
   */
  mark?: { note: NoteFacts; to?: string; was?: string };
  /** The note that repair makes list `uuid` under `supersedes` (once `mark`, if any, is done). */
  list?: { note: NoteFacts; uuid: string };
}

const lower = (s: string | null | undefined) => s?.toLowerCase() || undefined;

/**
 * Live notes superseded by a note that is no longer live (archived, or in no note, by hand or by an
 * older version of the tool): `stale` either way. When the archived successor was itself replaced
 * by a live note, repair points `superseded_by` at it and has it list the note under `supersedes`;
 * when nothing live replaces the note, repair removes `superseded_by` (and `superseded_at`): it is
 * the current belief again.
 */
function strandedSupersessions(notes: readonly NoteFacts[], map: CorpusMap, forked: Set<string>): Unanswered[] {
  const out: Unanswered[] = [];
  for (const old of notes) {
    const by = lower(old.superseded_by);
    if (!by || map.holders(by).length || forked.has(lower(old.uuid) ?? '')) continue;
    const archived = map.archivedByUuid(by);
    const next = archived && map.successor(archived);
    const base = {
      file: old.path,
      line: old.lines.superseded_by,
      label: 'superseded_by',
      target: archived ? `.archive/${archived.path}` : by,
      uuid: by,
      verdict: 'stale',
    };
    if (next?.uuid) {
      out.push({
        finding: { ...base, reason: `its successor was archived; the current note is ${next.path}`, fix: { uuid: next.uuid.toLowerCase() } },
        mark: { note: old, to: next.uuid, was: by },
        ...(old.uuid ? { list: { note: next, uuid: old.uuid } } : {}),
      });
    } else {
      const where = archived ? `was archived as .archive/${archived.path}` : 'is in no note';
      out.push({
        finding: {
          ...base,
          reason: `superseded by ${by}, which ${where}: nothing current replaces this note; repair makes it current again`,
          fix: { current: true },
        },
        mark: { note: old, was: by },
      });
    }
  }
  return out;
}

/**
 * Live notes superseded by a live note that does not list them under `supersedes` (a chain re-linked
 * by hand, or by a repair of an older version of the tool): `stale` on the successor's `supersedes`
 * line; repair adds the note there, so `read` of the successor shows what it replaces.
 */
function unlistedPredecessors(notes: readonly NoteFacts[], map: CorpusMap, forked: Set<string>): Unanswered[] {
  const out: Unanswered[] = [];
  for (const old of notes) {
    const holders = old.uuid && old.superseded_by && !forked.has(lower(old.uuid)!) ? map.holders(old.superseded_by) : [];
    if (holders.length !== 1) continue;
    const next = holders[0];
    if (next === old || next.supersedes.some((u) => lower(u) === lower(old.uuid))) continue;
    out.push({
      finding: {
        file: next.path,
        line: next.lines.supersedes,
        label: 'supersedes',
        target: old.path,
        uuid: old.uuid,
        verdict: 'stale',
        reason: `${old.path} is superseded by this note, which does not list it under supersedes`,
        fix: { uuid: old.uuid.toLowerCase() },
      },
      list: { note: next, uuid: old.uuid },
    });
  }
  return out;
}

/**
 * Supersessions that need care. Left half done (a writer killed between creating the new note and
 * marking the old one): `stale` when the old note lacks `superseded_by` (repair completes it),
 * `broken` when it names a note that is not live. Stranded (see strandedSupersessions) and unlisted
 * (see unlistedPredecessors): `stale`. A note replaced by two live notes is a fork (src/tend/forks.ts)
 * while both are current, settled once one is not: neither is answered here, so repair leaves it.
 */
export function unansweredSupersessions(notes: readonly NoteFacts[], map: CorpusMap): Unanswered[] {
  const forked = forkedUuids(forks(notes, map));
  const out: Unanswered[] = [];
  for (const n of notes) {
    if (!n.uuid) continue;
    for (const uuid of n.supersedes) {
      const holders = map.holders(uuid);
      if (holders.length !== 1) continue;
      const old = holders[0];
      if (lower(old.superseded_by) === lower(n.uuid) || forked.has(lower(old.uuid) ?? '')) continue;
      // replaced by another live note as well: a fork, or settled once either is superseded
      const other = old.superseded_by ? map.holders(old.superseded_by) : [];
      if (other.length === 1 && other[0] !== old) continue;
      const base = { file: n.path, line: n.lines.supersedes, label: 'supersedes', target: old.path, uuid: old.uuid };
      if (!old.superseded_by) {
        out.push({
          finding: { ...base, verdict: 'stale', reason: `${old.path} lacks superseded_by: ${n.uuid}`, fix: { uuid: n.uuid } },
          mark: { note: old, to: n.uuid },
        });
      } else {
        out.push({ finding: { ...base, verdict: 'broken', reason: `${old.path} is superseded by another note (${old.superseded_by})` } });
      }
    }
  }
  return [...out, ...strandedSupersessions(notes, map, forked), ...unlistedPredecessors(notes, map, forked)];
}

/**
 * Mend one supersession: mark the note (compare-and-swap; a note changed meanwhile to something
 * other than what was judged is left alone), then have its successor list it. Returns the files
 * changed. In this order a crash between the two leaves an unlisted predecessor, which the next
 * check reports.
 */
export async function completeSupersession(root: string, u: Unanswered): Promise<string[]> {
  const files: string[] = [];
  if (u.mark) {
    const { note, to, was } = u.mark;
    const change = await rewriteNoteLocked(root, note.path, (fresh) => {
      if (lower(fresh.superseded_by) !== was) return undefined;
      return withKeys(root, fresh, supersededKeys(to))?.raw;
    });
    if (!change) return files;
    files.push(note.path);
  }
  if (u.list) {
    const { note, uuid } = u.list;
    const change = await rewriteNoteLocked(root, note.path, (fresh) => {
      if (fresh.supersedes.some((s) => lower(s) === lower(uuid))) return undefined;
      return withKeys(root, fresh, { supersedes: [...fresh.supersedes, uuid] })?.raw;
    });
    if (change) files.push(note.path);
  }
  return files;
}
