import fs from 'node:fs';
import path from 'node:path';
import { NOTE_FILES, runRipgrep } from '../adapters/ripgrep.js';
import { ZkError } from '../errors.js';
import { hasControlChar, listNoteFiles } from '../corpus/files/note-files.js';
import { readNoteFile } from '../corpus/note/notes.js';
import { coverage, passesFloor, titleTerms } from './score.js';
import { hitsFromRanking, type Ranked } from './hits.js';
import { stem, type QueryTerm } from './terms.js';
import type { SearchHit, SearchOptions, SearchProvider } from './types.js';
import { escapeRegExp } from '../corpus/regex.js';

/**
 * The rest of a word after a term's prefix: ASCII letters and digits and every byte of a non-ASCII
 * character (the match is cut to letters, digits and marks afterwards). A byte class keeps ripgrep
 * on its fast path; a Unicode letter class with case folding costs a third more per search.
 */
const WORD_TAIL = '(?-u:[^\\x00-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f])*';
/** Cuts a matched word at the first character that would split a query into words. */
const NOT_WORD = /[^\p{L}\p{N}\p{M}]/u;

/**
 * The pattern for one term, always literal. A term of one or two letters must be the whole word
 * (so `c` from "C++" does not match every c-word); a longer one matches every word that starts
 * with its prefix, and the word's stem is checked afterwards. A term in a script without ASCII
 * word boundaries (most non-Latin text) matches as a substring.
 */
function termPattern(term: QueryTerm): string {
  const literal = escapeRegExp(term.prefix);
  if (term.whole) return `\\b${literal}\\b`;
  return /^[a-z0-9]/.test(term.prefix) ? `(?-u:\\b)${literal}${WORD_TAIL}` : literal;
}

/** Drop the patterns another one already covers (a word starting with "paint" starts with "pain"). */
function coveringTerms(terms: readonly QueryTerm[]): QueryTerm[] {
  return terms.filter((t, i) => !terms.some((o, j) => j !== i && !o.whole && t.prefix.startsWith(o.prefix) && (o.prefix !== t.prefix || j < i)));
}

/** How often each query stem occurs in one file, by the stem's place in the list of stems. */
export type TermCounts = Map<string, number[]>;

/**
 * Count, in one ripgrep run over the top-level `*.md` files, how often each stem of `stems` occurs
 * in each file: every word that starts with a term's prefix (case-insensitive, literal) is
 * stemmed, and counted for the term whose stem it has. `meanwhile` runs while ripgrep searches
 * (on another core). Returns file name → counts by stem index.
 */
export async function countTerms<T>(root: string, terms: readonly QueryTerm[], stems: string[], meanwhile: () => T): Promise<{ counts: TermCounts; also: T }> {
  const index = new Map(stems.map((t, i) => [t, i]));
  const literal = new Map(terms.filter((t) => t.whole || !/^[a-z0-9]/.test(t.prefix)).map((t) => [t.prefix, t.stem]));
  // A literal term counts as itself; a word is counted for its stem.
  const termOf = (match: string) => {
    const lower = match.toLowerCase().normalize('NFC');
    const word = lower.split(NOT_WORD, 1)[0];
    return index.get(literal.get(lower) ?? stem(word)) ?? -1;
  };
  const termIndex = new Map<string, number>();
  const args = [
    '--only-matching',
    '--ignore-case',
    '--with-filename',
    '--null',
    '--heading',
    '--no-line-number',
    ...coveringTerms(terms).flatMap((t) => ['-e', termPattern(t)]),
    ...NOTE_FILES,
  ];
  const counts: TermCounts = new Map();
  /** The counts of one file, or undefined for a name no note can have (the listing warns of it). */
  const countsOf = (name: string): number[] | undefined => {
    // ripgrep names every file it searches under `.` as `./name`.
    const base = name.startsWith('./') ? name.slice(2) : path.basename(name);
    if (hasControlChar(base)) return undefined;
    let per = counts.get(base);
    if (!per) counts.set(base, (per = new Array<number>(stems.length).fill(0)));
    return per;
  };
  const take = (per: number[], match: string) => {
    let term = termIndex.get(match);
    if (term === undefined) termIndex.set(match, (term = termOf(match)));
    if (term >= 0) per[term]++;
  };
  const run = await runRipgrep(args, root, meanwhile);
  // One block per file: `name NUL`, then each match and LF, then an empty line (none after the
  // last block). A name may itself hold a newline, so the NUL ends it; a match never holds one.
  const text = run.stdout.endsWith('\n\n') ? run.stdout : `${run.stdout}\n`;
  for (let at = 0; ; ) {
    const nul = text.indexOf('\0', at);
    const end = nul < 0 ? -1 : text.indexOf('\n\n', nul);
    if (end < 0) break;
    const per = countsOf(text.slice(at, nul));
    for (let p = nul + 1; per && p <= end; ) {
      const nl = text.indexOf('\n', p);
      take(per, text.slice(p, nl));
      p = nl + 1;
    }
    at = end + 2;
  }
  // A file whose matches were all words of other stems counts nothing.
  for (const [name, per] of counts) if (!per.some(Boolean)) counts.delete(name);
  // 1 means "no match"; 2 with output means some file could not be read, which is not fatal.
  const { code } = run;
  if (code === 0 || code === 1 || (code === 2 && counts.size > 0)) return { counts, also: run.also };
  throw new ZkError('io', `ripgrep failed: ${run.stderr.split('\n')[0] || `exit ${code}`}`);
}

const K1 = 1.2;
/** Mild length normalisation: a note is short, and a longer one is rarely longer for padding. */
const B = 0.4;
/** How many of the best provisional matches get their length looked up for the final ranking. */
const LENGTH_CANDIDATES = 2000;

/** Ties by file name in code-unit order (as listNoteFiles sorts): cheap, and the same everywhere. */
const byScore = (a: Ranked, b: Ranked) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Sort a long ranking by score, ties by name. Most scores repeat (every file with one match of
 * one term scores alike), so the files are grouped by score, each group filled in the order of
 * the name-sorted listing: only the distinct scores are sorted.
 */
function sortRanking(listing: string[], scoreOf: Map<string, number>): Ranked[] {
  const groups = new Map<number, string[]>();
  for (const name of listing) {
    const score = scoreOf.get(name);
    if (score === undefined) continue;
    const g = groups.get(score);
    if (g) g.push(name);
    else groups.set(score, [name]);
  }
  const out: Ranked[] = [];
  for (const score of [...groups.keys()].sort((a, b) => b - a)) for (const name of groups.get(score)!) out.push({ name, score });
  return out;
}

/**
 * Rank files by BM25 over term counts: frequency in the file, rarity across the corpus, and file
 * length relative to the average. Lengths cost a stat each, so every file is first scored as if
 * of average length, and only the best few thousand are then scored with their real length.
 */
export function bm25(
  root: string,
  counts: TermCounts,
  stems: string[],
  listing: string[],
  floor: SearchOptions = {},
): { ranked: Ranked[]; idf: (stem: string) => number } {
  const corpusSize = listing.length;
  const df = stems.map(() => 0);
  for (const per of counts.values()) for (let i = 0; i < per.length; i++) if (per[i]) df[i]++;
  const idfs = df.map((n) => Math.log(1 + (corpusSize - n + 0.5) / (n + 0.5)));
  const total = idfs.reduce((sum, w) => sum + w, 0) || 1;
  if (floor.minShare) {
    const rarity = { notes: corpusSize, stems, titled: titleTerms(stems, floor), df };
    const title = (name: string) => () => readNoteFile(root, name)?.title ?? '';
    for (const [name, per] of counts) if (!passesFloor(floor, rarity, (i) => per[i] > 0, title(name))) counts.delete(name);
  }
  const score = (per: number[], lengthRatio: number) => {
    const norm = K1 * (1 - B + B * lengthRatio);
    let sum = 0;
    let covered = 0;
    for (let i = 0; i < per.length; i++) {
      const tf = per[i];
      if (!tf) continue;
      sum += idfs[i] * ((tf * (K1 + 1)) / (tf + norm));
      covered += idfs[i];
    }
    return sum * coverage(covered / total);
  };
  const provisionalScore = new Map<string, number>();
  for (const [name, per] of counts) provisionalScore.set(name, score(per, 1));
  // Only notes of the listing are ranked: ripgrep does not tell a symlink leading outside the root.
  const provisional = sortRanking(listing, provisionalScore);
  const head = provisional.slice(0, LENGTH_CANDIDATES);
  const sizes = head.map((r) => fs.statSync(`${root}${path.sep}${r.name}`, { throwIfNoEntry: false })?.size ?? 0);
  const avg = sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length) || 1;
  const ranked = head.map((r, i) => ({ name: r.name, score: score(counts.get(r.name)!, (sizes[i] || avg) / avg) })).sort(byScore);
  const stemIndex = new Map(stems.map((t, i) => [t, i]));
  const idf = (stem: string) => idfs[stemIndex.get(stem) ?? -1] ?? 0;
  return { ranked: ranked.concat(provisional.slice(LENGTH_CANDIDATES)), idf };
}

/** Stateless ripgrep search: safe on shared folders, nothing to keep up to date. */
export const rgProvider: SearchProvider = {
  name: 'rg',
  async search(root, query, opts): Promise<SearchHit[]> {
    const terms = query.terms;
    if (!terms.length) return [];
    const stems = [...new Set(terms.map((t) => t.stem))];
    // The corpus is listed while ripgrep searches it.
    const { counts, also: listing } = await countTerms(root, terms, stems, () => listNoteFiles(root));
    if (!counts.size) return [];
    const { ranked, idf } = bm25(root, counts, stems, listing, opts);
    // The snippet looks for each term's literal start, weighted by the rarity of its stem.
    const stemOf = new Map(terms.map((t) => [t.prefix, t.stem]));
    const weight = (prefix: string) => idf(stemOf.get(prefix) ?? prefix);
    return hitsFromRanking(root, ranked, [...stemOf.keys()], opts, weight);
  },
};
