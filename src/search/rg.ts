import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { NOTE_FILES, rgPath } from '../adapters/ripgrep.js';
import { ZkError } from '../errors.js';
import { hasControlChar, listNoteFiles } from '../corpus/notes.js';
import { warn } from '../corpus/warn.js';
import { hitsFromRanking, type Ranked } from './hits.js';
import { searchTerms } from './terms.js';
import type { SearchHit, SearchProvider } from './types.js';


const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The pattern for one term, always literal: short terms must be whole words (so `c` from "C++"
 * does not match every "c"), longer ones match inside words too (a stem finds its inflections).
 */
function termPattern(term: string): string {
  return [...term].length < 3 ? `\\b${escapeRegex(term)}\\b` : escapeRegex(term);
}

/**
 * Count, in one ripgrep run over the top-level `*.md` files, how often each term occurs in each
 * file (case-insensitive, literal). Returns file name → term → count.
 */
export function countTerms(root: string, terms: string[]): Promise<Map<string, Map<string, number>>> {
  const args = [
    '--only-matching', '--ignore-case', '--with-filename', '--null', '--no-heading', '--no-line-number',
    ...terms.flatMap((t) => ['-e', termPattern(t)]), ...NOTE_FILES,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath(), args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const counts = new Map<string, Map<string, number>>();
    let rest = '';
    let stderr = '';
    const skipped = new Set<string>();
    const take = (name: string, term: string) => {
      if (hasControlChar(name)) {
        if (!skipped.has(name)) warn(`skipping ${JSON.stringify(path.basename(name))}: the file name holds a control character`);
        skipped.add(name);
        return;
      }
      const base = path.basename(name);
      let per = counts.get(base);
      if (!per) counts.set(base, (per = new Map()));
      per.set(term.toLowerCase(), (per.get(term.toLowerCase()) ?? 0) + 1);
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
const B = 0.75;
/** How many of the best provisional matches get their length looked up for the final ranking. */
const LENGTH_CANDIDATES = 2000;

/**
 * Rank files by BM25 over term counts: frequency in the file, rarity across the corpus, and file
 * length relative to the average. Lengths cost a stat each, so every file is first scored as if
 * of average length, and only the best few thousand are then scored with their real length.
 */
export function bm25(root: string, counts: Map<string, Map<string, number>>, terms: string[], corpusSize: number): Ranked[] {
  const df = new Map<string, number>();
  for (const per of counts.values()) for (const t of per.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => {
    const n = df.get(t) ?? 0;
    return Math.log(1 + (corpusSize - n + 0.5) / (n + 0.5));
  };
  const score = (per: Map<string, number>, lengthRatio: number) => {
    const norm = K1 * (1 - B + B * lengthRatio);
    let sum = 0;
    for (const t of terms) {
      const tf = per.get(t) ?? 0;
      if (tf) sum += idf(t) * ((tf * (K1 + 1)) / (tf + norm));
    }
    return sum;
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
    const terms = searchTerms(query);
    if (!terms.length) return [];
    const counts = await countTerms(root, terms);
    if (!counts.size) return [];
    const ranked = bm25(root, counts, terms, listNoteFiles(root).length);
    return hitsFromRanking(root, ranked, terms, opts);
  },
};
