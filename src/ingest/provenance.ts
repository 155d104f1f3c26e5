import type { JobDocument, JobWindow } from './state.js';

/** The frontmatter key that ties a captured note to the window it was written from. */
export const WINDOW_KEY = 'ingest_window';

export function windowRef(job: string, windowId: string): string {
  return `${job}/${windowId}`;
}

function sharedPrefix(paths: string[][]): string[] {
  const [first, ...rest] = paths;
  let n = first.length;
  for (const p of rest) {
    let i = 0;
    while (i < n && p[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n);
}

/**
 * The heading path a note from this window comes from: the window's section, or for a window that
 * holds several, the path they share, else the top-level titles it covers.
 */
function windowPath(window: JobWindow): string | undefined {
  const paths = (window.sections ?? [window]).map((s) => s.headings);
  const shared = sharedPrefix(paths);
  if (shared.length) return shared.join(' > ');
  const tops = [...new Set(paths.map((p) => p[0]).filter((h): h is string => h !== undefined))];
  return tops.length ? tops.join('; ') : undefined;
}

/**
 * Where a captured note comes from: written after the standard frontmatter keys of a new note, and
 * as the entry of a merged fragment in the note's `fragment_sources` (src/corpus/ops/merge.ts).
 */
export function provenance(job: string, doc: JobDocument, window: JobWindow): Record<string, string | undefined> {
  return {
    source_doc: doc.path,
    source_path: windowPath(window),
    [WINDOW_KEY]: windowRef(job, window.id),
  };
}
