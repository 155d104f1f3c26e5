import type { Extension as MdastExtension } from 'mdast-util-from-markdown';
import { gfmFootnoteFromMarkdown } from 'mdast-util-gfm-footnote';
import { gfmStrikethroughFromMarkdown } from 'mdast-util-gfm-strikethrough';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTaskListItemFromMarkdown } from 'mdast-util-gfm-task-list-item';
import type { Extension } from 'micromark-util-types';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';

// GitHub's extensions to CommonMark as the tool reads notes: tables, footnotes, strikethrough and
// task lists, but not literal autolinks (a bare `www.x` or `https://x` made a link). Those are
// never note links, and their extension costs far more than the rest of the parse: about 1.7 s a
// megabyte, growing with a paragraph's length (a 10 MB note took over a minute to read).

export function gfmParts(): Extension[] {
  return [gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()];
}

export function gfmPartsFromMarkdown(): MdastExtension[] {
  return [gfmFootnoteFromMarkdown(), gfmStrikethroughFromMarkdown(), gfmTableFromMarkdown(), gfmTaskListItemFromMarkdown()];
}
