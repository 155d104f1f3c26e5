import { nameKey, newestCurrent, undatedSlug } from '../corpus/markdown/note-names.js';
import type { NoteFacts } from '../corpus/graph/facts.js';
import type { Finding } from './check.js';
import { listed } from './forks.js';

// Two hosts may each write a note under the same undated slug on different days (`write` refuses
// that on one host). After a merge both are current and the slug names the newest (docs/refs.md):
// reported once per slug as `same_slug`, so a person knows the older one is reached by file name
// only. A slug borne by a chain, with one current note, is the normal case and not reported.

/** One finding per undated slug that more than one current note bears, on the note the slug names. */
export function sameSlugFindings(notes: readonly NoteFacts[]): Finding[] {
  const bySlug = new Map<string, NoteFacts[]>();
  for (const n of notes) {
    const slug = undatedSlug(n.path);
    if (!slug) continue;
    const k = nameKey(slug);
    const list = bySlug.get(k);
    if (list) list.push(n);
    else bySlug.set(k, [n]);
  }
  const out: Finding[] = [];
  for (const group of bySlug.values()) {
    if (group.filter((n) => !n.superseded_by).length < 2) continue;
    const paths = group.map((n) => n.path).sort();
    const named = newestCurrent(group)!;
    const slug = undatedSlug(named.path)!;
    out.push({
      file: named.path,
      line: 1,
      label: 'slug',
      target: slug,
      uuid: named.uuid || null,
      verdict: 'same_slug',
      reason: `${slug} is the undated slug of ${listed(paths)}; refs name the newest${named.path === paths.at(-1) ? '' : ` current one, ${named.path}`}`,
      notes: paths,
    });
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : 1));
}
