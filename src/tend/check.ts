import { encodeTarget, isNoteLink, parseLinks, type Link } from '../corpus/links.js';
import type { Note } from '../corpus/notes.js';
import type { CorpusMap } from './corpus-map.js';
import { hasFragment } from './headings.js';

export type Verdict = 'ok' | 'stale' | 'broken' | 'unanchored';

/** What a fix changes: the link target as it will be written, and/or the uuid of its anchor. */
export interface Fix {
  target?: string;
  uuid?: string;
}

/** One line of a tend report (docs/cli.md#tend); `target` is the link target exactly as written. */
export interface Finding {
  file: string;
  line: number;
  label: string;
  target: string;
  uuid: string | null;
  verdict: string;
  reason?: string;
  fix?: Fix;
}

/** A finding together with the link it is about, for rewriting. */
export interface LinkFinding {
  link: Link;
  finding: Finding;
}

/** The links `tend` looks after: to notes of the root (`name.md`, maybe `#heading`) and to own headings (`#heading`). */
export function tendedLinks(note: Note): Link[] {
  return parseLinks(note.raw).filter(
    (l) => l.start >= note.parsed.bodyOffset && (isNoteLink(l) || (l.target === '' && l.fragment !== undefined)),
  );
}

/** The target text as written, with its file part replaced (the fragment kept only when `keepFragment`). */
export function retarget(written: string, name: string, keepFragment: boolean): string {
  const hash = written.indexOf('#');
  return encodeTarget(name) + (keepFragment && hash >= 0 ? written.slice(hash) : '');
}

/** Classify every tended link of a note. */
export function checkNote(note: Note, map: CorpusMap): LinkFinding[] {
  return tendedLinks(note).map((link) => ({ link, finding: classify(note, link, map) }));
}

function classify(note: Note, link: Link, map: CorpusMap): Finding {
  const written = note.raw.slice(link.targetStart, link.targetEnd);
  const base = { file: note.path, line: link.line, label: link.label, target: written, uuid: link.uuid ?? null };
  const ok = (): Finding => ({ ...base, verdict: 'ok' });
  const broken = (reason: string): Finding => ({ ...base, verdict: 'broken', reason });
  const unknownHeading = (target: Note) =>
    link.fragment !== undefined && !hasFragment(map.headings(target), link.fragment)
      ? broken(`no heading #${link.fragment} in ${target.path}`)
      : undefined;

  if (link.target === '') return unknownHeading(note) ?? ok();

  const named = map.note(link.target);
  if (link.uuid) {
    const holders = map.holders(link.uuid);
    if (named && holders.includes(named)) return unknownHeading(named) ?? ok();
    if (holders.length === 1) {
      const moved = holders[0];
      return { ...base, verdict: 'stale', reason: `uuid now lives in ${moved.path}`, fix: { target: retarget(written, moved.path, true) } };
    }
    if (holders.length > 1) return broken(`uuid held by several notes: ${holders.map((n) => n.path).join(', ')}`);
  } else if (named) {
    const bad = unknownHeading(named);
    if (bad) return bad;
    const fix = named.uuid ? { fix: { uuid: named.uuid.toLowerCase() } } : { reason: `${named.path} has no uuid; tend mint gives it one` };
    return { ...base, verdict: 'unanchored', ...fix };
  }

  const archived = map.archived(link.target, link.uuid);
  if (archived) {
    const next = map.successor(archived);
    if (!next) return broken(`target archived as .archive/${archived.path} with no live successor`);
    const keep = link.fragment !== undefined && hasFragment(map.headings(next), link.fragment);
    return {
      ...base, verdict: 'stale', reason: `target archived; superseded by ${next.path}`,
      fix: { target: retarget(written, next.path, keep), uuid: next.uuid.toLowerCase() },
    };
  }
  if (named) return broken(`uuid mismatch: ${named.path} has uuid ${named.uuid || '(none)'}`);
  return broken('target missing');
}

/** Count findings by verdict, starting from zero for the verdicts a report always shows. */
export function countVerdicts(findings: Finding[], always: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(always.map((v) => [v, 0]));
  for (const f of findings) counts[f.verdict] = (counts[f.verdict] ?? 0) + 1;
  return counts;
}
