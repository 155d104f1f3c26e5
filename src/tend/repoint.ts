import { applyEdits, type TextEdit } from '../corpus/note/text-edits.js';
import { encodeTarget, linksByName, parseBody, type Link } from '../corpus/markdown/links.js';
import { noteLinks } from '../corpus/graph/link-graph.js';
import { candidateFiles } from '../corpus/graph/grep.js';
import { nameKey, wikiNamesOf } from '../corpus/markdown/note-names.js';
import type { Note } from '../corpus/note/notes.js';
import { findRelated } from '../corpus/graph/related.js';
import { rewriteNoteLocked, type FileChange } from '../corpus/ops/rewrite.js';
import { retarget, type Fix } from './check.js';
import { fixEdits } from './edits.js';
import { linkFragmentFound, noteHeadings } from '../corpus/markdown/headings.js';

/** A note that is going away (archived), named as links name it. */
export interface Departed {
  path: string;
  uuid: string;
  /** Its title, which wikilinks may name it by. */
  title?: string;
}

function names(l: Link, n: { path: string; title?: string }): boolean {
  return linksByName(l) ? wikiNamesOf(n).includes(nameKey(l.target)) : l.target === n.path;
}

function pointsAt(l: Link, from: Departed): boolean {
  return names(l, from) || Boolean(from.uuid && l.uuid === from.uuid.toLowerCase());
}

/** The whole line a link stands on, with its line ending. */
function lineOf(raw: string, l: Link): TextEdit {
  const start = raw.lastIndexOf('\n', l.start - 1) + 1;
  const nl = raw.indexOf('\n', l.end);
  return { start, end: nl < 0 ? raw.length : nl + 1, text: '' };
}

/**
 * The edits that point a note's links at `to` instead of `from`: the target becomes `to`'s file
 * name (its `#heading` kept when `to` has it), the anchor `to`'s uuid. A Related entry that would
 * then name the note itself or a note the body already links to is dropped instead.
 */
export function repointEdits(note: Note, from: Departed, to: Note): TextEdit[] {
  const links = noteLinks(note);
  const moving = links.filter((l) => pointsAt(l, from));
  if (!moving.length) return [];
  const toUuid = to.uuid.toLowerCase();
  const alreadyLinked = note.path === to.path || links.some((l) => !pointsAt(l, from) && (names(l, to) || (toUuid && l.uuid === toUuid)));
  const related = findRelated(note.raw, note.parsed.bodyOffset);
  const headings = noteHeadings(parseBody(to.raw, to.parsed.bodyOffset));
  const dropped = new Map<number, TextEdit>();
  const retargeted = new Set<number>();
  const edits = moving.flatMap((l) => {
    if (alreadyLinked && related && l.start >= related.start && l.start < related.end) {
      const line = lineOf(note.raw, l);
      dropped.set(line.start, line);
      return [];
    }
    const fix: Fix = {};
    // reference links sharing a definition: its target is rewritten once
    if (!names(l, to) && !retargeted.has(l.targetStart)) {
      const written = note.raw.slice(l.targetStart, l.targetEnd);
      fix.target = retarget(l, written, to, l.fragment !== undefined && linkFragmentFound(headings, l));
      retargeted.add(l.targetStart);
    }
    if (toUuid && l.uuid !== toUuid && (l.uuid || fix.target !== undefined)) fix.uuid = toUuid;
    return fixEdits(note.raw, l, fix);
  });
  const gone = [...dropped.values()].sort((a, b) => a.start - b.start);
  return [...gone, ...edits.filter((e) => !withinLine(gone, e))];
}

/** Whether an edit lies inside one of `lines` (sorted, apart): a binary search, as a hub drops many. */
function withinLine(lines: TextEdit[], e: TextEdit): boolean {
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lines[mid].start <= e.start) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && e.end <= lines[lo - 1].end;
}

/**
 * Point every link at `from` (by file name or by uuid anchor) at `to`, each file rewritten under
 * the corpus lock. Returns the changes made.
 */
export async function repointInbound(root: string, from: Departed, to: Note, o: { skip?: string[] } = {}): Promise<FileChange[]> {
  const skip = new Set(o.skip ?? []);
  // the stem is in every way a link may name the file (file name, %-encoded name, wikilink by stem)
  const needles = [from.path.replace(/\.md$/i, ''), encodeTarget(from.path), from.uuid, from.title].filter((n): n is string => Boolean(n));
  const changes: FileChange[] = [];
  // Only the files that mention the departed note are read, so repointing does not read the whole corpus.
  for (const name of candidateFiles(root, [...new Set(needles)], { fixed: true })) {
    if (skip.has(name)) continue;
    const change = await rewriteNoteLocked(root, name, (n) => {
      const edits = repointEdits(n, from, to);
      return edits.length ? applyEdits(n.raw, edits) : undefined;
    });
    if (change) changes.push(change);
  }
  return changes;
}

/**
 * The edits that point the links anchored to `uuid` that name `fromPath` at `to` instead, the
 * anchor kept: after a note was renamed, links written to it by uuid follow it, while links to
 * whichever note now bears the old name stay.
 */
export function anchoredRepointEdits(note: Note, uuid: string, fromPath: string, to: Note): TextEdit[] {
  const want = uuid.toLowerCase();
  const headings = noteHeadings(parseBody(to.raw, to.parsed.bodyOffset));
  return noteLinks(note)
    .filter((l) => l.uuid === want && names(l, { path: fromPath }))
    .flatMap((l) => {
      const written = note.raw.slice(l.targetStart, l.targetEnd);
      return fixEdits(note.raw, l, { target: retarget(l, written, to, l.fragment !== undefined && linkFragmentFound(headings, l)) });
    });
}
