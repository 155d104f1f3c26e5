import type { TextEdit } from '../corpus/frontmatter.js';
import { applyEdits } from '../corpus/frontmatter.js';
import { encodeTarget, isNoteLink, parseLinks, type Link } from '../corpus/links.js';
import { candidateFiles } from '../corpus/grep.js';
import type { Note } from '../corpus/notes.js';
import { findRelated } from '../corpus/related.js';
import { rewriteNoteLocked, type FileChange } from '../corpus/rewrite.js';
import { retarget, type Fix } from './check.js';
import { fixEdits } from './edits.js';
import { hasFragment, headingSlugs } from './headings.js';

/** A note that is going away (archived), named as links name it. */
export interface Departed {
  path: string;
  uuid: string;
}

function pointsAt(l: Link, from: Departed): boolean {
  return l.target === from.path || Boolean(from.uuid && l.uuid === from.uuid.toLowerCase());
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
  const links = parseLinks(note.raw).filter((l) => l.start >= note.parsed.bodyOffset && isNoteLink(l));
  const moving = links.filter((l) => pointsAt(l, from));
  if (!moving.length) return [];
  const toUuid = to.uuid.toLowerCase();
  const alreadyLinked = note.path === to.path || links.some((l) => !pointsAt(l, from) && (l.target === to.path || (toUuid && l.uuid === toUuid)));
  const related = findRelated(note.raw, note.parsed.bodyOffset);
  const slugs = headingSlugs(to.parsed.body);
  const dropped = new Map<number, TextEdit>();
  const edits = moving.flatMap((l) => {
    if (alreadyLinked && related && l.start >= related.start && l.start < related.end) {
      const line = lineOf(note.raw, l);
      dropped.set(line.start, line);
      return [];
    }
    const fix: Fix = {};
    if (l.target !== to.path) {
      const written = note.raw.slice(l.targetStart, l.targetEnd);
      fix.target = retarget(written, to.path, l.fragment !== undefined && hasFragment(slugs, l.fragment));
    }
    if (toUuid && l.uuid !== toUuid && (l.uuid || fix.target !== undefined)) fix.uuid = toUuid;
    return fixEdits(note.raw, l, fix);
  });
  const gone = [...dropped.values()];
  return [...gone, ...edits.filter((e) => !gone.some((g) => e.start >= g.start && e.end <= g.end))];
}

/**
 * Point every link at `from` (by file name or by uuid anchor) at `to`, each file rewritten under
 * the corpus lock. Returns the changes made.
 */
export async function repointInbound(root: string, from: Departed, to: Note, o: { skip?: string[] } = {}): Promise<FileChange[]> {
  const skip = new Set(o.skip ?? []);
  const needles = [from.path, encodeTarget(from.path), from.uuid].filter(Boolean);
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
