import fs from 'node:fs';
import { replaceFile } from '../corpus/files.js';
import type { TextEdit } from '../corpus/frontmatter.js';
import { readNoteFile, type Note } from '../corpus/notes.js';
import type { LinkFinding } from './check.js';

const ANCHOR_UUID = /(uuid:\s*)([0-9a-fA-F-]{8,})/;

/** The edits that carry out a link finding's fix: a new target, a new or changed uuid anchor. */
export function linkEdits(raw: string, { link, finding }: LinkFinding): TextEdit[] {
  const fix = finding.fix;
  if (!fix) return [];
  const edits: TextEdit[] = [];
  if (fix.target !== undefined) edits.push({ start: link.targetStart, end: link.targetEnd, text: fix.target });
  if (fix.uuid !== undefined) {
    const anchor = ANCHOR_UUID.exec(raw.slice(link.linkEnd, link.end));
    if (link.uuid && anchor) {
      const start = link.linkEnd + anchor.index + anchor[1].length;
      edits.push({ start, end: start + anchor[2].length, text: fix.uuid });
    } else {
      edits.push({ start: link.end, end: link.end, text: ` <!-- uuid: ${fix.uuid} -->` });
    }
  }
  return edits;
}

const BOM = '\uFEFF';

/** A note read for rewriting, remembering whether the file starts with a byte order mark. */
export interface FreshNote {
  note: Note;
  bom: boolean;
}

/** Read a note afresh (under the lock, just before rewriting it); undefined when gone or unreadable. */
export function readFresh(root: string, name: string): FreshNote | undefined {
  const note = readNoteFile(root, name);
  return note && { note, bom: startsWithBom(note.file) };
}

/** The decoded text of a note has its byte order mark removed; a rewrite must put it back. */
function startsWithBom(file: string): boolean {
  const head = Buffer.alloc(3);
  const fd = fs.openSync(file, 'r');
  try {
    return fs.readSync(fd, head, 0, 3, 0) === 3 && head.equals(Buffer.from(BOM));
  } finally {
    fs.closeSync(fd);
  }
}

/** Write a note's new text atomically, keeping its byte order mark. */
export function writeFresh(root: string, fresh: FreshNote, text: string): void {
  replaceFile(root, fresh.note.file, (fresh.bom ? BOM : '') + text);
}
