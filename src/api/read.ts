import { noteInfo, type NoteInfo } from '../corpus/note/notes.js';
import { readNote, readTimeline } from '../corpus/ops/read.js';
import type { Backlink, ResolvedLink } from '../corpus/graph/link-graph.js';
import type { ChainNote } from '../corpus/graph/supersession.js';
import type { Belief } from '../corpus/graph/timeline.js';

export type { Belief } from '../corpus/graph/timeline.js';

export interface ReadNoteJson extends NoteInfo {
  supersedes: string[];
  body: string;
  frontmatter: Record<string, unknown>;
  /** The file's text as stored (without a byte-order mark); as of a date, as it stood then. */
  raw: string;
}

export interface ReadResult {
  note: ReadNoteJson;
  /** The notes that replaced this one, oldest first, archived ones too (the last is the current belief unless archived). */
  chain: ChainNote[];
  /** The notes this one replaced, live or archived (an archived one's path is under `.archive/`). */
  replaces: ChainNote[];
  links: ResolvedLink[];
  /** The notes that link to this one, by any form of link. */
  backlinks: Backlink[];
  /** The day or moment the answer is as of, when one was asked for. */
  as_of?: string;
}

export interface ReadOptions {
  links?: boolean;
  /** How the note stood at the end of this day (or at this moment): a day or moment already checked (requireMoment). */
  asOf?: string;
}

/** A note with its links resolved; with `asOf`, as it stood then. */
export function read(root: string, ref: string, o: ReadOptions = {}): ReadResult {
  const r = readNote(root, ref, { asOf: o.asOf });
  const n = r.note;
  return {
    note: { ...noteInfo(n), supersedes: n.supersedes, body: n.parsed.body, frontmatter: n.parsed.frontmatter, raw: n.raw.replace(/^\uFEFF/, '') },
    chain: r.chain,
    replaces: r.replaces,
    links: o.links === false ? [] : r.links,
    backlinks: o.links === false ? [] : r.backlinks,
    ...(o.asOf !== undefined ? { as_of: o.asOf } : {}),
  };
}

export interface TimelineResult {
  /** The beliefs about the note's subject, oldest first. */
  timeline: Belief[];
}

/** The beliefs about the subject of the note `ref` names: the notes it replaced, itself, the notes that replaced it. */
export function timeline(root: string, ref: string): TimelineResult {
  return { timeline: readTimeline(root, ref) };
}
