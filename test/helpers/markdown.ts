import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/** The text a node renders to, markup left out. */
function textOf(node: Nodes): string {
  if ('value' in node) return node.value;
  return 'children' in node ? node.children.map((c) => textOf(c as Nodes)).join('') : '';
}

/**
 * The headings and table cells a CommonMark + GFM renderer makes of a Markdown text, as
 * `type: text`: where a fragment's date line must never end up.
 */
export function headingsAndCells(markdown: string): string[] {
  const found: string[] = [];
  const walk = (node: Nodes) => {
    if (node.type === 'heading' || node.type === 'tableCell') found.push(`${node.type}: ${textOf(node)}`);
    if ('children' in node) for (const c of node.children) walk(c as Nodes);
  };
  walk(fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }));
  return found;
}
