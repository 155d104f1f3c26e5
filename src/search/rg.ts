import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { NOTE_FILES, rgPath } from '../adapters/ripgrep.js';
import { ZkError } from '../errors.js';
import { hasControlChar, listNoteFiles } from '../corpus/notes.js';
import { warn } from '../corpus/warn.js';
import { hitsFromRanking, type Ranked } from './hits.js';
import { queryTerms, stem, type QueryTerm } from './terms.js';
import type { SearchHit, SearchProvider } from './types.js';


const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
  const literal = escapeRegex(term.prefix);
  if (term.whole) return `\\b${literal}\\b`;
  return /^[a-z0-9]/.test(term.prefix) ? `(?-u:\\b)${literal}${WORD_TAIL}` : literal;
}

/** Drop the patterns another one already covers (a word starting with "paint" starts with "pain"). */
function coveringTerms(terms: QueryTerm[]): QueryTerm[] {
  return terms.filter((t, i) => !terms.some((o, j) => j !== i && !o.whole && t.prefix.startsWith(o.prefix) && (o.prefix !== t.prefix || j < i)));
}

/**
 * Count, in one ripgrep run over the top-level `*.md` files, how often each term occurs in each
 * file: every word that starts with a term's prefix (case-insensitive, literal) is stemmed, and
 * counted for the term whose stem it has. Returns file name → stem → count.
 */
export function countTerms(root: string, terms: QueryTerm[]): Promise<Map<string, Map<string, number>>> {
  const wanted = new Set(terms.map((t) => t.stem));
  const literal = new Map(terms.filter((t) => t.whole || !/^[a-z0-9]/.test(t.prefix)).map((t) => [t.prefix, t.stem]));
  // A literal term counts as itself; a word is counted for its stem.
  const termOf = (match: string) => {
    const lower = match.toLowerCase().normalize('NFC');
    const word = lower.split(NOT_WORD, 1)[0];
    return literal.get(lower) ?? stem(word);
  };
  const stemOf = new Map<string, string>();
  const args = [
    '--only-matching', '--ignore-case', '--with-filename', '--null', '--no-heading', '--no-line-number',
    ...coveringTerms(terms).flatMap((t) => ['-e', termPattern(t)]), ...NOTE_FILES,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath(), args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const counts = new Map<string, Map<string, number>>();
    let rest = '';
    let stderr = '';
    const skipped = new Set<string>();
    const take = (name: string, match: string) => {
      if (hasControlChar(name)) {
        if (!skipped.has(name)) warn(`skipping ${JSON.stringify(path.basename(name))}: the file name holds a control character`);
        skipped.add(name);
        return;
      }
      let term = stemOf.get(match);
      if (term === undefined) stemOf.set(match, (term = termOf(match)));
      if (!wanted.has(term)) return;
      const base = path.basename(name);
      let per = counts.get(base);
      if (!per) counts.set(base, (per = new Map()));
      per.set(term, (per.get(term) ?? 0) + 1);
    };
    // Each match is `name NUL term LF`; a name may itself hold a newline, so the NUL comes first.
    const drain = () => {
      for (;;) {
        const nul = rest.indexOf('\0');
        const nl = nul < 0 ? -1 : rest.indexOf('\n', nul);
        if (nl < 0) return;
        take(rest.slice(0, nul), rest.slice(nul + 1, nl));
        rest = rest.slice(nl + 1);
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      rest += chunk;
      drain();
    });
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', (err) => reject(new ZkError('io', `cannot run ripgrep (${rgPath()}): ${err.message}`)));
    child.on('close', (code) => {
      if (rest) {
        rest += '\n';
        drain();
      }
      // 1 means "no match"; 2 with output means some file could not be read, which is not fatal.
      if (code === 0 || code === 1 || (code === 2 && counts.size > 0)) resolve(counts);
      else reject(new ZkError('io', `ripgrep failed: ${stderr.split('\n')[0] || `exit ${code}`}`));
    });
  });
}

const K1 = 1.2;
/** Mild length normalisation: a note is short, and a longer one is rarely longer for padding. */
const B = 0.4;
/** How many of the best provisional matches get their length looked up for the final ranking. */
const LENGTH_CANDIDATES = 2000;

/**
 * How much of the query a note covers (the share of the query's weight among the terms it
 * contains) scales its score: many repetitions of one query word do not outrank a note that
 * has them all.
 */
export const coverage = (share: number) => share;

/**
 * Rank files by BM25 over term counts: frequency in the file, rarity across the corpus, and file
 * length relative to the average. Lengths cost a stat each, so every file is first scored as if
 * of average length, and only the best few thousand are then scored with their real length.
 */
export function bm25(root: string, counts: Map<string, Map<string, number>>, terms: string[], corpusSize: number, minShare = 0): Ranked[] {
  const df = new Map<string, number>();
  for (const per of counts.values()) for (const t of per.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => {
    const n = df.get(t) ?? 0;
    return Math.log(1 + (corpusSize - n + 0.5) / (n + 0.5));
  };
  const total = terms.reduce((sum, t) => sum + idf(t), 0) || 1;
  if (minShare > 0) {
    for (const [name, per] of counts) if (per.size / terms.length < minShare) counts.delete(name);
  }
  const score = (per: Map<string, number>, lengthRatio: number) => {
    const norm = K1 * (1 - B + B * lengthRatio);
    let sum = 0;
    let covered = 0;
    for (const t of terms) {
      const tf = per.get(t) ?? 0;
      if (!tf) continue;
      sum += idf(t) * ((tf * (K1 + 1)) / (tf + norm));
      covered += idf(t);
    }
    return sum * coverage(covered / total);
  };
  // Ties by file name in code-unit order (as listNoteFiles sorts): cheap, and the same everywhere.
  const byScore = (a: Ranked, b: Ranked) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const provisional = [...counts].map(([name, per]) => ({ name, score: score(per, 1) })).sort(byScore);
  const head = provisional.slice(0, LENGTH_CANDIDATES);
  const sizes = head.map((r) => {
    try {
      return fs.statSync(path.join(root, r.name)).size;
    } catch {
      return 0;
    }
  });
  const avg = sizes.reduce((a, b) => a + b, 0) / Math.max(1, sizes.length) || 1;
  const ranked = head.map((r, i) => ({ name: r.name, score: score(counts.get(r.name)!, (sizes[i] || avg) / avg) })).sort(byScore);
  return [...ranked, ...provisional.slice(LENGTH_CANDIDATES)].map((r) => ({ ...r, weight: idf }));
}

/** Stateless ripgrep search: safe on shared folders, nothing to keep up to date. */
export const rgProvider: SearchProvider = {
  name: 'rg',
  async search(root, query, opts): Promise<SearchHit[]> {
    const terms = queryTerms(query);
    if (!terms.length) return [];
    const counts = await countTerms(root, terms);
    if (!counts.size) return [];
    const ranked = bm25(root, counts, terms.map((t) => t.stem), listNoteFiles(root).length, opts.minShare);
    // The snippet looks for each term's literal start, weighted by the rarity of its stem.
    const stemOf = new Map(terms.map((t) => [t.prefix, t.stem]));
    const idf = ranked[0]?.weight;
    const weight = (prefix: string) => idf?.(stemOf.get(prefix) ?? prefix) ?? 1;
    return hitsFromRanking(root, ranked.map((r) => ({ ...r, weight })), [...stemOf.keys()], opts);
  },
};
