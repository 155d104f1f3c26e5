import type { TextEdit } from '../corpus/note/text-edits.js';
import type { Link } from '../corpus/markdown/links.js';
import type { Fix, LinkFinding } from './check.js';

const ANCHOR_UUID = /(uuid:\s*)([0-9a-fA-F-]{8,})/;

/** The edits that carry out a link finding's fix: a new target, a new or changed uuid anchor. */
export function linkEdits(raw: string, { link, finding, targetShared }: LinkFinding): TextEdit[] {
  if (!finding.fix) return [];
  // a definition shared by several reference links is rewritten once
  const { target, ...rest } = finding.fix;
  return fixEdits(raw, link, targetShared ? rest : { target, ...rest });
}

/** The edits that give one link a new target and/or a new or changed uuid anchor. */
export function fixEdits(raw: string, link: Link, fix: Fix): TextEdit[] {
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
