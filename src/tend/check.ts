import { encodeTarget, isNameLink, linksByName, type Link } from '../corpus/markdown/links.js';
import type { LinkForm } from '../corpus/markdown/markdown.js';
import { wikiNameByStyle, type Named } from '../corpus/markdown/note-names.js';
import type { CorpusMap } from './corpus-map.js';
import type { NoteFacts, TendedLink } from '../corpus/graph/facts.js';
import { linkFragmentFound } from '../corpus/markdown/headings.js';

export type Verdict = 'ok' | 'stale' | 'broken' | 'unanchored' | 'impossible' | 'bad_date' | 'fork' | 'same_slug';

/** What a fix changes: the link target as it will be written, and/or the uuid of its anchor (or of a supersession). */
export interface Fix {
  target?: string;
  uuid?: string;
  /** A `superseded_by` removed: nothing live replaces the note, so it is the current belief again. */
  current?: true;
}

/** One line of a tend report (docs/cli.md#tend); `target` is the link target exactly as written. */
export interface Finding {
  file: string;
  line: number;
  label: string;
  target: string;
  /** How the link is written (link findings only). */
  form?: LinkForm;
  uuid: string | null;
  verdict: string;
  reason?: string;
  fix?: Fix;
  /** The notes a finding is about besides `file` (`fork`: the current successors; `same_slug`: every note bearing the slug). */
  notes?: string[];
}

/** A finding together with the link it is about, for rewriting. */
export interface LinkFinding {
  link: TendedLink;
  finding: Finding;
  /** The target is written in a definition that an earlier reference link already rewrites. */
  targetShared?: boolean;
}

/** How a wikilink names a note: by default in the style of the target it had. */
export type WikiNamer = (to: Named, written: string) => string;

/**
 * The target text as written, with its note part replaced by `to` (the fragment kept only when
 * `keepFragment`): a file name for a Markdown link, a name in the same style for a wikilink.
 */
export function retarget(link: Link, written: string, to: Named, keepFragment: boolean, wikiName: WikiNamer = wikiNameByStyle): string {
  const hash = written.indexOf('#');
  const fragment = keepFragment && hash >= 0 ? written.slice(hash) : '';
  if (link.form !== 'wiki') return encodeTarget(to.path) + fragment;
  return wikiName(to, (hash >= 0 ? written.slice(0, hash) : written).trim()) + fragment;
}

/** Classify every tended link of a note. */
export function checkNote(note: NoteFacts, map: CorpusMap): LinkFinding[] {
  const found: LinkFinding[] = note.links.map((link) => ({ link, finding: classify(note, link, map) }));
  // reference links share their definition's target: it is rewritten once, for the first of them
  const rewritten = new Set<number>();
  for (const f of found) {
    if (f.finding.fix?.target === undefined) continue;
    if (rewritten.has(f.link.targetStart)) f.targetShared = true;
    rewritten.add(f.link.targetStart);
  }
  return found;
}

/** The note a link names by its target, or why it names none. */
function named(link: Link, map: CorpusMap): { note?: NoteFacts; ambiguous?: NoteFacts[] } {
  if (!linksByName(link)) return { note: map.note(link.target) };
  const r = map.resolveWiki(link.target);
  if (r.note || !r.ambiguous) return r;
  // an anchor settles which of several same-named notes is meant
  const held = link.uuid ? r.ambiguous.find((n) => n.uuid.toLowerCase() === link.uuid) : undefined;
  return held ? { note: held } : r;
}

function classify(note: NoteFacts, link: TendedLink, map: CorpusMap): Finding {
  const { written } = link;
  const base = { file: note.path, line: link.line, label: link.label, target: written, form: link.form, uuid: link.uuid ?? null };
  const ok = (): Finding => ({ ...base, verdict: 'ok' });
  const broken = (reason: string): Finding => ({ ...base, verdict: 'broken', reason });
  const unknownHeading = (target: NoteFacts) =>
    !linkFragmentFound(map.headings(target), link) ? broken(`no heading #${link.fragment} in ${target.path}`) : undefined;
  const wikiName = (to: Named, w: string) => map.wikiName(to, w);

  if (link.target === '') return unknownHeading(note) ?? ok();

  const target = named(link, map);
  if (target.ambiguous && !link.uuid) return broken(`ambiguous: ${link.target} names ${target.ambiguous.map((n) => n.path).join(', ')}`);
  const found = target.note;
  if (link.uuid) {
    const holders = map.holders(link.uuid);
    if (found && holders.includes(found)) return unknownHeading(found) ?? ok();
    if (holders.length === 1) {
      const moved = holders[0];
      return { ...base, verdict: 'stale', reason: `uuid now lives in ${moved.path}`, fix: { target: retarget(link, written, moved, true, wikiName) } };
    }
    if (holders.length > 1) return broken(`uuid held by several notes: ${holders.map((n) => n.path).join(', ')}`);
  } else if (found) {
    const bad = unknownHeading(found);
    if (bad) return bad;
    // A name link is anchored in the form this tool writes: the note's file name.
    const canonical = isNameLink(link) ? { target: retarget(link, written, found, true, wikiName) } : {};
    const fix = found.uuid ? { fix: { ...canonical, uuid: found.uuid.toLowerCase() } } : { reason: `${found.path} has no uuid; tend mint gives it one` };
    return { ...base, verdict: 'unanchored', ...fix };
  }

  const archived = map.archived(link);
  if (archived) {
    const next = map.successor(archived);
    if (!next) return broken(`target archived as .archive/${archived.path} with no live successor`);
    const keep = link.fragment !== undefined && linkFragmentFound(map.headings(next), link);
    return {
      ...base,
      verdict: 'stale',
      reason: `target archived; superseded by ${next.path}`,
      fix: { target: retarget(link, written, next, keep, wikiName), uuid: next.uuid.toLowerCase() },
    };
  }
  if (found) return broken(`uuid mismatch: ${found.path} has uuid ${found.uuid || '(none)'}`);
  if (target.ambiguous) return broken(`ambiguous: ${link.target} names ${target.ambiguous.map((n) => n.path).join(', ')}`);
  return broken('target missing');
}

/** Count findings by verdict, starting from zero for the verdicts a report always shows. */
export function countVerdicts(findings: Finding[], always: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(always.map((v) => [v, 0]));
  for (const f of findings) counts[f.verdict] = (counts[f.verdict] ?? 0) + 1;
  return counts;
}
