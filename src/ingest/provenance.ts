import type { JobDocument, JobWindow } from './state.js';

/** The frontmatter key that ties a captured note to the window it was written from. */
export const WINDOW_KEY = 'ingest_window';

export function windowRef(job: string, windowId: string): string {
  return `${job}/${windowId}`;
}

/** Where a captured note comes from: written after the standard frontmatter keys. */
export function provenance(job: string, doc: JobDocument, window: JobWindow): Record<string, string | undefined> {
  return {
    source_doc: doc.path,
    source_path: window.headings.length ? window.headings.join(' > ') : undefined,
    [WINDOW_KEY]: windowRef(job, window.id),
  };
}
