import { ZkError } from '../errors.js';
import { checkKind } from '../corpus/note/kinds.js';
import { loadNoteMetas } from '../corpus/note/note-meta.js';
import { bodyAsOf, validAt } from '../corpus/note/as-of.js';
import { notesHeldAt } from '../corpus/graph/held-at.js';
import { timeAsked } from '../corpus/note/moments.js';
import { readNoteFile, type Note } from '../corpus/note/notes.js';
import { sidecar } from '../corpus/files/paths.js';
import { lastUpdated, snippet } from '../search/snippet.js';
import type { Query } from '../search/terms.js';
import type { SearchHit } from '../search/types.js';
import type { SearchRequest } from './search-request.js';

// A search in time (docs/search.md#as-of-and-valid-at): `asOf`, the memory as it stood at the end
// of a day (notes written by then, as they stood: superseded only if superseded by then, only the
// fragments merged by then); `validAt`, the notes whose validity covers a day, superseded ones
// included. The notes that qualify are worked out from the note metadata first, and the backend
// ranks with only those counting, so the first hits are the best that qualify.

export type TimeSearch = SearchRequest & { limit: number };

/**
 * Which notes qualify, with the `superseded_by` each is answered with; as of a day, the notes
 * archived since that the day held too, by their `.archive/` path.
 */
function qualifying(root: string, o: TimeSearch, at: number): Map<string, string | null> {
  const live = loadNoteMetas(root);
  const kind = checkKind(o.kind);
  const states = new Map<string, string | null>();
  if (o.asOf !== undefined) {
    for (const m of notesHeldAt(root, live, at)) {
      if ((!kind || m.kind === kind) && (!m.superseded_by || o.history)) states.set(m.path, m.superseded_by);
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

const ARCHIVE = '.archive/';

/** Where a hit's note is read from: the root, or the archive for a `.archive/` path. */
function located(root: string, path: string): { dir: string; name: string } {
  return path.startsWith(ARCHIVE) ? { dir: sidecar(root).archive, name: path.slice(ARCHIVE.length) } : { dir: root, name: path };
}

/**
 * How a search in time looks at the notes it ranks, for one call: which may count, and how each
 * hit is answered. Each note's text as it stood at `at` (later fragments cut) is read once,
 * however often the ranking and the answer ask for it.
 */
function inTime(root: string, states: Map<string, string | null>, at: number | undefined, terms: readonly string[]) {
  const stood = new Map<string, { note: Note; body: string } | undefined>();
  const asItStood = (path: string) => {
    if (at === undefined) return undefined;
    if (!stood.has(path)) {
      const { dir, name } = located(root, path);
      const note = readNoteFile(dir, name);
      stood.set(path, note && { note, body: bodyAsOf(note.parsed.body, at) });
    }
    return stood.get(path);
  };
  return {
    /**
     * The notes that may count (`prefix` before the names of another folder): those that qualify,
     * and as of a day, when `lexical`, only those whose text then still held a term of the query.
     */
    qualifies:
      (lexical: boolean, prefix = '') =>
      (name: string) => {
        const path = prefix + name;
        if (!states.has(path)) return false;
        const then = lexical ? asItStood(path) : undefined;
        return !then || then.body === then.note.parsed.body || heldTerm(`${then.note.title}\n${then.body}`, terms);
      },
    /** A hit as a search in time answers it: `superseded_by` as then, and as of a day the snippet from the text then. */
    answered: (h: SearchHit): SearchHit => {
      const then = asItStood(h.path);
      const cut = then && then.body !== then.note.parsed.body;
      return {
        ...h,
        superseded_by: states.get(h.path) ?? null,
        ...(cut ? { snippet: snippet(then.body, terms), updated: lastUpdated(then.body, h.date) } : {}),
      };
    },
  };
}

/**
 * The notes archived since that the day held, ranked by ripgrep among themselves (the archive has
 * no index), as hits under their `.archive/` path.
 */
async function archivedHits(root: string, query: Query, limit: number, view: ReturnType<typeof inTime>): Promise<SearchHit[]> {
  const { rgProvider } = await import('../search/rg.js');
  const hits = await rgProvider.search(sidecar(root).archive, query, { limit, history: true, only: view.qualifies(true, ARCHIVE) });
  return hits.map((h) => view.answered({ ...h, path: ARCHIVE + h.path }));
}

/** Two rankings of different engines as one: each score taken relative to its ranking's best, the best `limit`. */
function mergeRankings(a: SearchHit[], b: SearchHit[], limit: number): SearchHit[] {
  const relative = (hits: SearchHit[]) => hits.map((h) => ({ h, r: h.score / Math.max(hits[0]?.score ?? 1, Number.EPSILON) }));
  return [...relative(a), ...relative(b)]
    .sort((x, y) => y.r - x.r)
    .slice(0, limit)
    .map((x) => x.h);
}

/** Whether a note's text as of `at` still holds one of the query's terms (a later fragment may have brought it in). */
function heldTerm(text: string, terms: readonly string[]): boolean {
  const lower = text.toLowerCase();
  return terms.some((t) => lower.includes(t));
}

export async function searchInTime(root: string, query: Query, o: TimeSearch) {
  if (o.asOf !== undefined && o.validAt !== undefined) throw new ZkError('usage', 'as-of and valid-at ask different questions: pass one of them');
  const asOf = o.asOf !== undefined;
  const at = timeAsked(asOf ? o.asOf! : o.validAt!, asOf ? 'as-of date' : 'valid-at date');
  const states = qualifying(root, o, at);
  const view = inTime(root, states, asOf ? at : undefined, query.prefixes);
  const { kind: _kind, ...rest } = o;
  const { searchCorpus } = await import('../search/backends.js');
  const r = await searchCorpus(root, query, { ...rest, history: true, only: view.qualifies(o.backend !== 'vector') });
  let hits = r.hits.map(view.answered);
  if ([...states.keys()].some((p) => p.startsWith(ARCHIVE))) hits = mergeRankings(hits, await archivedHits(root, query, o.limit, view), o.limit);
  return {
    query: query.text,
    backend: r.backend,
    ...(r.fallback ? { fallback: r.fallback } : {}),
    ...(asOf ? { as_of: o.asOf } : { valid_at: o.validAt }),
    hits,
  };
}
