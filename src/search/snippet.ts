import { FRAGMENT_HEADER } from '../corpus/note/format.js';

/** Characters either side of the centre of an excerpt: room for a sentence or two. */
const RADIUS = 150;

/** Where the last merge fragment of a body starts, and its date; undefined when nothing was merged. */
function lastFragment(text: string): { at: number; date: string } | undefined {
  let last: { at: number; date: string } | undefined;
  for (const m of text.matchAll(FRAGMENT_HEADER)) last = { at: m.index + 1, date: m[1] };
  return last;
}

/** When a note last changed in substance: the date of its last merge fragment, else its own date. */
export function lastUpdated(body: string, date: string): string {
  return lastFragment(body)?.date ?? date;
}

/**
 * A one-line excerpt of `text` around the place where the query's terms cluster most densely
 * (weighted by how rare each term is), with an ellipsis where it was cut. When the latest merged
 * fragment mentions a term, the excerpt comes from it: a fact updated by a merge shows its newest
 * value, not the one it replaced.
 */
export function snippet(body: string, terms: string[], weight: (term: string) => number = () => 1): string {
  // The title is shown beside every hit already; the excerpt starts after its heading.
  const text = body.replace(/^\s*# [^\n]*\n/, '');
  const lower = text.toLowerCase();
  let spots: { at: number; w: number }[] = [];
  for (const t of terms) {
    if (!t) continue;
    for (let i = lower.indexOf(t); i >= 0 && spots.length < 2000; i = lower.indexOf(t, i + t.length)) spots.push({ at: i, w: weight(t) });
  }
  const latest = lastFragment(text);
  if (latest && spots.some((s) => s.at >= latest.at)) spots = spots.filter((s) => s.at >= latest.at);
  let center = latest && spots.length && spots[0].at >= latest.at ? latest.at + RADIUS : 0;
  if (spots.length) {
    spots.sort((a, b) => a.at - b.at);
    let best = -1;
    let lo = 0;
    let sum = 0;
    for (let hi = 0; hi < spots.length; hi++) {
      sum += spots[hi].w;
      while (spots[hi].at - spots[lo].at > RADIUS * 2) sum -= spots[lo++].w;
      if (sum > best) {
        best = sum;
        center = Math.round((spots[lo].at + spots[hi].at) / 2);
      }
    }
  }
  // Within the latest fragment, start at its beginning when it fits: the date and the new value read together.
  const floor = latest && spots.length && spots[0].at >= latest.at ? latest.at : 0;
  const start = Math.max(floor, center - RADIUS, 0);
  const end = Math.min(text.length, start + 2 * RADIUS);
  const excerpt = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${excerpt}${end < text.length ? '…' : ''}`;
}
