import { noteInfo, type NoteInfo } from '../corpus/note/notes.js';
import { readNote } from '../corpus/ops/read.js';
import type { Backlink, ResolvedLink } from '../corpus/graph/link-graph.js';
import type { ChainNote } from '../corpus/graph/supersession.js';

export interface ReadNoteJson extends NoteInfo {
  supersedes: string[];
  body: string;
  frontmatter: Record<string, unknown>;
  /** The file's text as stored (without a byte-order mark). */
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
}

/** A note with its links resolved. */
export function read(root: string, ref: string, o: { links?: boolean } = {}): ReadResult {
  const r = readNote(root, ref);
  const n = r.note;
  return {
    note: { ...noteInfo(n), supersedes: n.supersedes, body: n.parsed.body, frontmatter: n.parsed.frontmatter, raw: n.raw.replace(/^\uFEFF/, '') },
    chain: r.chain,
    replaces: r.replaces,
    links: o.links === false ? [] : r.links,
    backlinks: o.links === false ? [] : r.backlinks,
  };
}
