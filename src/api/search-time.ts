import { ZkError } from '../errors.js';
import { checkKind } from '../corpus/note/kinds.js';
import { loadNoteMetas } from '../corpus/note/note-meta.js';
import { askedAt, bodyAsOf, validAt } from '../corpus/note/as-of.js';
import { notesHeldAt } from '../corpus/graph/held-at.js';
import { requireMoment } from '../corpus/note/moments.js';
import { readNoteFile } from '../corpus/note/notes.js';
import { lastUpdated, snippet } from '../search/snippet.js';
import { snippetTerms } from '../search/terms.js';
import type { SearchHit } from '../search/types.js';
import type { SearchRequest } from './search-request.js';

// A search in time (docs/search.md#as-of-and-valid-at): `asOf`, the memory as it stood at the end
// of a day (notes written by then, as they stood: superseded only if superseded by then, only the
// fragments merged by then); `validAt`, the notes whose validity covers a day, superseded ones
// included. The notes that qualify are worked out from the note metadata first, and the backend
// ranks with only those counting, so the first hits are the best that qualify.

export type TimeSearch = SearchRequest & { limit: number };

/**
 * Which notes qualify, with the `superseded_by` each is answered with. Only live notes: the
 * archive is not searched (an archived note the day held is listed and read as of it, not found).
 */
function qualifying(root: string, o: TimeSearch, at: number): Map<string, string | null> {
  const live = loadNoteMetas(root);
  const kind = checkKind(o.kind);
  const states = new Map<string, string | null>();
  if (o.asOf !== undefined) {
    const paths = new Set(live.map((m) => m.path));
    for (const m of notesHeldAt(root, live, at)) {
      if (paths.has(m.path) && (!kind || m.kind === kind) && (!m.superseded_by || o.history)) states.set(m.path, m.superseded_by);
    }
    return states;
  }
  const byUuid = new Map(live.filter((m) => m.uuid).map((m) => [m.uuid.toLowerCase(), m]));
  for (const m of live) {
    const successor = m.superseded_by ? byUuid.get(m.superseded_by.toLowerCase()) : undefined;
    if ((!kind || m.kind === kind) && validAt(m, at, successor)) states.set(m.path, m.superseded_by);
  }
  return states;
}

/** Whether a note's text as of `at` still holds one of the query's terms (a later fragment may have brought it in). */
function heldTerm(text: string, terms: string[]): boolean {
  const lower = text.toLowerCase();
  return terms.some((t) => lower.includes(t));
}

export async function searchInTime(root: string, query: string, o: TimeSearch) {
  if (o.asOf !== undefined && o.validAt !== undefined) throw new ZkError('usage', 'as-of and valid-at ask different questions: pass one of them');
  const asOf = o.asOf !== undefined;
  const at = askedAt(requireMoment(asOf ? o.asOf! : o.validAt!, asOf ? 'as-of date' : 'valid-at date'))!;
  const states = qualifying(root, o, at);
  const terms = snippetTerms(query);
  // As of a day, a note is what it held then: a note that matches only through a later fragment does not.
  const asItStood = (path: string) => {
    const note = asOf ? readNoteFile(root, path) : undefined;
    return note && { note, body: bodyAsOf(note.parsed.body, at) };
  };
  const lexical = (backend: string) => backend !== 'vector';
  const { searchCorpus } = await import('../search/index.js');
  const only = (path: string) => {
    if (!states.has(path)) return false;
    const then = asItStood(path);
    return !then || then.body === then.note.parsed.body || heldTerm(`${then.note.title}\n${then.body}`, terms);
  };
  const { kind: _kind, ...rest } = o;
  const r = await searchCorpus(root, query, { ...rest, history: true, only: lexical(o.backend ?? '') ? only : (p) => states.has(p) });
  const hits = r.hits.map((h): SearchHit => {
    const then = asItStood(h.path);
    const body = then?.body;
    return {
      ...h, superseded_by: states.get(h.path) ?? null,
      ...(body !== undefined && body !== then!.note.parsed.body ? { snippet: snippet(body, terms), updated: lastUpdated(body, h.date) } : {}),
    };
  });
  return { query, backend: r.backend, ...(r.fallback ? { fallback: r.fallback } : {}), ...(asOf ? { as_of: o.asOf } : { valid_at: o.validAt }), hits };
}
