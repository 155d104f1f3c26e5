import { ZkError } from '../errors.js';
import { TABLE, refreshIndex, type FtsRow } from './fts-table.js';
import { indexDir, lance, openTable, plainRows, type Table } from './lance.js';
import { hitsFromRanking } from './hits.js';
import { coverage, passesFloor, titleTerms, type TermRarity } from './score.js';
import { stem, stemFinder, type Query } from './terms.js';
import type { SearchHit, SearchOptions, SearchProvider } from './types.js';
import { EVERY_NOTE } from './types.js';
import { residentIndex } from './resident-index.js';

// Full-text search: LanceDB's BM25 over title and body, on the table src/search/fts-table.ts keeps
// up to date before each query.

/**
 * The notes table at `refreshedAt`: in a warm process the one kept open since the index was last
 * refreshed, else opened now.
 */
async function notesTable(root: string, refreshedAt: string | undefined): Promise<Table | undefined> {
  const warm = residentIndex();
  if (!warm || refreshedAt === undefined) return openTable(root, TABLE);
  const dir = indexDir(root);
  const open = warm.tables.get(dir, TABLE, refreshedAt);
  if (open) return open;
  const table = await openTable(root, TABLE);
  if (table) warm.tables.set(dir, TABLE, refreshedAt, table);
  return table;
}

/**
 * A match of the index: what re-ranking reads of it, its title and body only when it weighs the
 * query's terms (`weighsTerms`). A hit's other fields come from its note (see `hitsFromRanking`).
 */
type Match = Pick<FtsRow, 'path'> & Partial<Pick<FtsRow, 'title' | 'body'>> & { _score: number };

/** Whether re-ranking reads the matches' text: only for a query of two stems or more (see `byCoverage`). */
const weighsTerms = (stems: readonly string[]) => stems.length >= 2;

async function query(root: string, q: string, limit: number, history: boolean, withText: boolean, refreshedAt?: string): Promise<Match[]> {
  const ldb = await lance();
  const table = await notesTable(root, refreshedAt);
  if (!table) throw new ZkError('io', 'search index has no notes table');
  let builder = table.query().fullTextSearch(new ldb.MultiMatchQuery(q, ['title', 'body'], { boosts: [2, 1] }));
  if (!history) builder = builder.where('current = true');
  // Each column LanceDB returns costs a query at 50k notes (the bodies of 40 matches about 1 ms): the
  // few re-ranking reads, and the notes of the hits kept, read from their files (which the refresh just matched).
  return plainRows<Match>(builder.select(withText ? ['path', 'title', 'body', '_score'] : ['path', '_score']).limit(limit));
}

/** How many of the index's best matches are re-ranked by how much of the query they cover. */
const RERANK_DEPTH = 40;

/**
 * What the relevance floor `o` needs to know of the query's terms (`words`: a query word per
 * stem): for each word of the query's title, how many indexed notes hold it in title or body,
 * counted through the full-text index up to one past the floor's bound (a few rows per word).
 */
async function termRarity(root: string, stems: readonly string[], words: Map<string, string>, o: SearchOptions, refreshedAt?: string): Promise<TermRarity> {
  const titled = titleTerms(stems, o);
  if (!o.rareTitleWord || !titled.some(Boolean)) return { notes: 0, stems, titled, df: stems.map(() => 0) };
  const ldb = await lance();
  const table = await notesTable(root, refreshedAt);
  if (!table) throw new ZkError('io', 'search index has no notes table');
  const notes = await table.countRows();
  const upTo = Math.max(1, Math.min(notes, o.rareTitleWord.notes(notes) + 1));
  const holding = async (word: string) =>
    (
      await table
        .query()
        .fullTextSearch(new ldb.MultiMatchQuery(word, ['title', 'body']))
        .select(['_score'])
        .limit(upTo)
        .toArray()
    ).length;
  return { notes, stems, titled, df: await Promise.all(stems.map((t, i) => (titled[i] ? holding(words.get(t) ?? t) : 0))) };
}

/**
 * The index's BM25 scores scaled by the share of the query's terms each note contains, as the rg
 * backend scores (see `coverage`): one word repeated does not outrank a note that has them all.
 * With `rarity`, a note below the relevance floor `o` is dropped (see `passesFloor`).
 */
function byCoverage(rows: Match[], terms: readonly string[], o: SearchOptions, rarity?: TermRarity): Match[] {
  if (!weighsTerms(terms)) return rows;
  const stemsIn = stemFinder(terms);
  const scored = rows.flatMap((r) => {
    // The query selected the text (`weighsTerms`).
    const { title = '', body = '' } = r;
    const words = stemsIn(`${title}\n${body}`);
    const has = (i: number) => words.has(terms[i]);
    if (rarity && !passesFloor(o, rarity, has, () => title)) return [];
    return [{ r, score: r._score * coverage(terms.filter((t) => words.has(t)).length / terms.length) }];
  });
  return scored.sort((a, b) => b.score - a.score).map(({ r, score }) => ({ ...r, _score: score }));
}

/**
 * BM25 hits from the full-text index as it stands (refresh it first; `refreshedAt`, from that
 * refresh, lets a warm process query the table it keeps open). A table that cannot be queried is
 * rebuilt once.
 */
export async function ftsHits(root: string, q: Query, opts: SearchOptions & { limit: number }, refreshedAt?: string): Promise<SearchHit[]> {
  const { words, stems, prefixes: terms } = q;
  if (!words.length) return [];
  const text = words.join(' ');
  const history = Boolean(opts.history);
  const rarity = opts.minShare ? await termRarity(root, stems, new Map(words.map((w) => [stem(w), w])), opts, refreshedAt) : undefined;
  // With only some notes counting, the ranking is looked at ever deeper until it holds enough of them.
  for (let depth = Math.max(opts.limit + 5, RERANK_DEPTH); ; depth *= 8) {
    let rows: Match[];
    try {
      rows = await query(root, text, depth, history, weighsTerms(stems), refreshedAt);
    } catch {
      const rebuilt = await refreshIndex(root, { rebuild: true });
      rows = await query(root, text, depth, history, weighsTerms(stems), rebuilt.refreshedAt);
    }
    const found = rows.length;
    // A note deleted or superseded since the refresh is left out as it is read.
    const hits = hitsFromRanking(
      root,
      byCoverage(rows, stems, opts, rarity).map((r) => ({ name: r.path, score: r._score })),
      terms,
      opts,
    );
    if (!opts.only || hits.length >= opts.limit || found < depth || depth >= EVERY_NOTE) return hits;
  }
}

/** LanceDB BM25 full-text search over title and body, refreshed incrementally before each query. */
export const ftsProvider: SearchProvider = {
  name: 'fts',
  async search(root, q, opts): Promise<SearchHit[]> {
    if (!q.words.length) return [];
    const { refreshedAt } = await refreshIndex(root);
    return ftsHits(root, q, opts, refreshedAt);
  },
};
