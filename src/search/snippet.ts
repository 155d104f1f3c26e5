const RADIUS = 90;

/**
 * A one-line excerpt of `text` around the place where the query's terms cluster most densely
 * (weighted by how rare each term is), with an ellipsis where it was cut.
 */
export function snippet(body: string, terms: string[], weight: (term: string) => number = () => 1): string {
  // The title is shown beside every hit already; the excerpt starts after its heading.
  const text = body.replace(/^\s*# [^\n]*\n/, '');
  const lower = text.toLowerCase();
  const spots: { at: number; w: number }[] = [];
  for (const t of terms) {
    if (!t) continue;
    for (let i = lower.indexOf(t); i >= 0 && spots.length < 2000; i = lower.indexOf(t, i + t.length)) spots.push({ at: i, w: weight(t) });
  }
  let center = 0;
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
  const start = Math.max(0, center - RADIUS);
  const end = Math.min(text.length, center + RADIUS);
  const excerpt = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${excerpt}${end < text.length ? '…' : ''}`;
}
