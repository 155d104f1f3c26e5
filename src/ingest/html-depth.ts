/**
 * How deep an HTML document nests, estimated by a single pass over its tags, so a document that
 * would take the converter minutes (and then overflow its stack) is refused before it is parsed.
 */

/** Elements that never hold content. */
const VOID = new Set('area base br col embed hr img input keygen link meta param source track wbr'.split(' '));

/**
 * Elements whose end tag may be left out: the parser closes them when a sibling starts, so a run of
 * them does not nest. Not counting them keeps sloppy but ordinary pages under the limit.
 */
const IMPLIED_END = new Set('p li dt dd option optgroup tr td th thead tbody tfoot colgroup caption rb rt rtc rp html head body'.split(' '));

/** Elements whose content is text up to their own end tag. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript', 'template', 'iframe', 'noembed', 'noframes', 'plaintext']);

/** Inside these, `<x/>` closes itself; in HTML proper the slash is ignored and `<div/>` opens a div. */
const FOREIGN = new Set(['svg', 'math']);

// Attributes stop at the next `<` as well as at `>`, so no input makes the scan go back over itself.
const TAG_SOURCE = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)([^<>]*)>/;

/** The deepest element nesting found, counting stops once it passes `limit`. */
export function htmlDepth(html: string, limit = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let foreign = 0; // depth at which an svg or math element opened; 0 outside
  const tag = new RegExp(TAG_SOURCE.source, 'g');
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    const name = m[2]?.toLowerCase();
    if (!name) continue; // a comment
    const closing = m[1] === '/';
    if (closing) {
      if (VOID.has(name) || IMPLIED_END.has(name)) continue;
      if (depth > 0) depth--;
      if (foreign && depth < foreign) foreign = 0;
      continue;
    }
    if (VOID.has(name) || IMPLIED_END.has(name)) continue;
    if (foreign && /\/\s*$/.test(m[3])) continue;
    depth++;
    if (FOREIGN.has(name) && !foreign) foreign = depth;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return deepest;
    }
    if (RAW_TEXT.has(name)) {
      const end = new RegExp(`</${name}`, 'ig');
      end.lastIndex = tag.lastIndex;
      if (!end.exec(html)) break;
      tag.lastIndex = end.lastIndex - name.length - 2;
    }
  }
  return deepest;
}
