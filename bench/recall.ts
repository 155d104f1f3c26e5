/**
 * Recall of the real search code on a conversational-memory development set: each question is the
 * query, its evidence notes the answer. Prints recall@1/5/10 and MRR@10 overall and by category,
 * the median query time per backend, how many candidate searches a stream of unrelated facts
 * turns into judge calls, and, for the gardener, how many pairs of notes on one subject it judges
 * and how many notes of unrelated facts it judges for nothing.
 *
 * For `fts`, also how often the context bundle for the question (`context`, the budgets in
 * CONTEXT_BUDGETS) holds an evidence note, beside the top 5 and top 10 hits.
 *
 *   npm run bench:recall [-- DATA_DIR] [--backends rg,fts,vector,hybrid] [--corpora conv_0,…] [--no-unrelated] [--json FILE]
 *
 * DATA_DIR (or ZK_MEMORY_RECALL_DATA) defaults to ../shared/data/locomo-dev beside the repository.
 * vector and hybrid run with the configured embedder: an endpoint (ZK_MEMORY_EMBED_BASE, _MODEL),
 * else the built-in model unless ZK_MEMORY_EMBED=off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeNote } from '../src/corpus/ops/write.js';
import type { Note } from '../src/corpus/note/notes.js';
import { configuredEmbedder, type Embedder } from '../src/llm/embed.js';
import { index } from '../src/api/search.js';
import { tendCandidates } from '../src/pipelines/gardener.js';
import { findCandidates, toCandidate } from '../src/pipelines/integrate.js';
import { searchCorpus } from '../src/search/backends.js';
import { context } from '../src/index.js';
import { relatedPairs } from './related-pairs.js';
import { UNRELATED_FACTS } from './unrelated-facts.js';
import { REPO, inCall } from './harness.js';

const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };
const K = 10;
/** The token budgets the context bundle is measured at. */
const CONTEXT_BUDGETS = [500, 1000, 2000];

interface Question {
  id: string;
  corpus: string;
  category: number;
  question: string;
  evidence: string[];
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function dataDir(): string {
  const positional = process.argv.slice(2).find((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
  const dir = path.resolve(positional ?? process.env.ZK_MEMORY_RECALL_DATA ?? path.join(REPO, '..', 'shared', 'data', 'locomo-dev'));
  if (!fs.existsSync(path.join(dir, 'questions.jsonl'))) {
    process.stderr.write(
      `bench:recall: no development set at ${dir} (questions.jsonl is missing); pass its folder as an argument or set ZK_MEMORY_RECALL_DATA\n`,
    );
    process.exit(2);
  }
  return dir;
}

/** Each corpus folder copied to a temp root (the data set stays read-only and out of the repository). */
function copyCorpora(dir: string, names: string[]): { roots: Map<string, string>; tmp: string } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-recall-'));
  const roots = new Map<string, string>();
  for (const name of names) {
    const root = path.join(tmp, name);
    fs.cpSync(path.join(dir, name), root, { recursive: true });
    fs.mkdirSync(path.join(root, '.zk'), { recursive: true });
    roots.set(name, root);
  }
  return { roots, tmp };
}

interface Tally {
  n: number;
  at1: number;
  at5: number;
  at10: number;
  rr: number;
}
const tally = (): Tally => ({ n: 0, at1: 0, at5: 0, at10: 0, rr: 0 });

function score(t: Tally, rank: number | undefined): void {
  t.n += 1;
  if (rank === undefined) return;
  if (rank <= 1) t.at1 += 1;
  if (rank <= 5) t.at5 += 1;
  if (rank <= 10) t.at10 += 1;
  t.rr += 1 / rank;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

interface BackendResult {
  backend: string;
  overall: Record<string, number>;
  categories: Record<string, Record<string, number>>;
  median_ms: number;
  /** Rank of the first evidence note per question id (0: not in the top 10), for comparing runs. */
  ranks: Record<string, number>;
  unrelated?: { facts: number; searches_with_hits: number };
  /** Questions whose candidate search (as integrate makes it) shows the judge an evidence note. */
  related?: { questions: number; evidence_shown: number };
  /** The gardener on pairs of notes on one subject: pairs where tending either note shows the other (both: each shows the other). */
  pairs?: { pairs: number; judged: number; both: number };
  /** The gardener on notes of unrelated facts: how many would be shown a note (a judge call for nothing). */
  gardenUnrelated?: { facts: number; judged: number };
  /** How often the context bundle for the question holds an evidence note, by budget, beside the top 5 and top 10 hits. */
  context?: ContextRecall;
}

interface ContextRecall {
  questions: number;
  top_5: number;
  top_10: number;
  /** Share of questions whose bundle holds an evidence note, by budget (tokens). */
  bundle: Record<string, number>;
  /** Same, by category. */
  categories: Record<string, { n: number; top_5: number; top_10: number; bundle: Record<string, number> }>;
  /** The tokens a bundle took, median, by budget. */
  median_tokens: Record<string, number>;
  /** Median ms of a bundle at 1,000 tokens, in-process. */
  median_ms: number;
  /** Per question id: whether an evidence note is in the bundle at each budget, in CONTEXT_BUDGETS order. */
  found: Record<string, boolean[]>;
}

/**
 * For each question, whether an evidence note is inside the context bundle for it at each budget
 * (whole or cut: its entry is in the bundle), beside the question's rank among the search hits.
 */
async function contextRecall(backend: string, questions: Question[], roots: Map<string, string>, ranks: Record<string, number>): Promise<ContextRecall> {
  type Count = { n: number; top_5: number; top_10: number; bundle: number[] };
  const count = (): Count => ({ n: 0, top_5: 0, top_10: 0, bundle: CONTEXT_BUDGETS.map(() => 0) });
  const all = count();
  const byCat = new Map<number, Count>();
  const tokens: number[][] = CONTEXT_BUDGETS.map(() => []);
  const times: number[] = [];
  const found: Record<string, boolean[]> = {};
  for (const [done, q] of questions.entries()) {
    if (done % 100 === 0) process.stderr.write(`${backend}: context bundles, ${done} of ${questions.length} questions\n`);
    const root = roots.get(q.corpus)!;
    const evidence = new Set(q.evidence);
    const inside: boolean[] = [];
    for (const [i, budget] of CONTEXT_BUDGETS.entries()) {
      const t0 = process.hrtime.bigint();
      // The set's notes link to none: a bundle with links followed is the same, at the cost of looking them up.
      const r = await context(root, { query: q.question, budget, backend, hops: 0 });
      if (budget === 1000) times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      tokens[i].push(r.tokens);
      inside.push(r.notes.some((n) => evidence.has(n.path)));
    }
    found[q.id] = inside;
    if (!byCat.has(q.category)) byCat.set(q.category, count());
    for (const c of [all, byCat.get(q.category)!]) {
      c.n += 1;
      const rank = ranks[q.id];
      if (rank > 0 && rank <= 5) c.top_5 += 1;
      if (rank > 0 && rank <= 10) c.top_10 += 1;
      inside.forEach((yes, i) => (c.bundle[i] += yes ? 1 : 0));
    }
  }
  const shares = (c: Count) => ({
    n: c.n,
    top_5: r3(c.top_5 / c.n),
    top_10: r3(c.top_10 / c.n),
    bundle: Object.fromEntries(CONTEXT_BUDGETS.map((b, i) => [String(b), r3(c.bundle[i] / c.n)])),
  });
  const overall = shares(all);
  return {
    questions: all.n,
    top_5: overall.top_5,
    top_10: overall.top_10,
    bundle: overall.bundle,
    categories: Object.fromEntries([...byCat].sort(([a], [b]) => a - b).map(([c, t]) => [`${c} ${CATEGORIES[c] ?? ''}`.trim(), shares(t)])),
    median_tokens: Object.fromEntries(CONTEXT_BUDGETS.map((b, i) => [String(b), median(tokens[i])])),
    median_ms: r3(median(times)),
    found,
  };
}

function summary(t: Tally): Record<string, number> {
  const d = Math.max(1, t.n);
  return { n: t.n, recall_1: r3(t.at1 / d), recall_5: r3(t.at5 / d), recall_10: r3(t.at10 / d), mrr_10: r3(t.rr / d) };
}

type MaybeEmbedder = Awaited<ReturnType<typeof configuredEmbedder>>;

/**
 * Embed every note of the corpora as `index` does (an embedder that indexes in the background
 * leaves that to the server or `index`, not to a search), outside the timings; says how fast.
 */
async function embedAll(roots: Map<string, string>, embedder: Embedder): Promise<void> {
  const t0 = performance.now();
  let notes = 0;
  for (const [name, root] of roots) {
    const r = await index(root, { embedder, progress: (line) => process.stderr.write(`${name}: ${line}\n`) });
    notes += 'vectors' in r ? r.vectors.embedded : 0;
  }
  const seconds = (performance.now() - t0) / 1000;
  process.stderr.write(`embedded ${notes} notes in ${seconds.toFixed(1)} s (${(notes / seconds).toFixed(1)} notes/s) with ${embedder.model}\n`);
}

async function runBackend(backend: string, questions: Question[], roots: Map<string, string>, embedder: MaybeEmbedder): Promise<BackendResult> {
  const overall = tally();
  const byCat = new Map<number, Tally>();
  const times: number[] = [];
  const ranks: Record<string, number> = {};
  // One untimed search per corpus first: builds the index (and embeds every note) outside the timings.
  for (const root of roots.values()) await searchCorpus(root, 'warm up', { backend, limit: K, embedder });
  for (const q of questions) {
    const t0 = process.hrtime.bigint();
    const { hits } = await searchCorpus(roots.get(q.corpus)!, q.question, { backend, limit: K, embedder });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const evidence = new Set(q.evidence);
    const at = hits.findIndex((h) => evidence.has(h.path));
    const rank = at >= 0 ? at + 1 : undefined;
    ranks[q.id] = rank ?? 0;
    score(overall, rank);
    if (!byCat.has(q.category)) byCat.set(q.category, tally());
    score(byCat.get(q.category)!, rank);
  }
  const categories = Object.fromEntries([...byCat].sort(([a], [b]) => a - b).map(([c, t]) => [`${c} ${CATEGORIES[c] ?? ''}`.trim(), summary(t)]));
  return { backend, overall: summary(overall), categories, median_ms: r3(median(times)), ranks };
}

/**
 * How many of a stream of facts that no note is about would reach the merge judge: each fact's
 * candidate search (as integrate makes it) over every corpus, counted when it finds at least one note.
 */
async function unrelatedJudgeCalls(backend: string, roots: Map<string, string>): Promise<{ facts: number; searches_with_hits: number }> {
  let withHits = 0;
  let searches = 0;
  for (const root of roots.values()) {
    for (const fact of UNRELATED_FACTS) {
      searches += 1;
      const found = await findCandidates(root, toCandidate({ content: fact }), { backend });
      if (found.length) withHits += 1;
    }
  }
  return { facts: searches, searches_with_hits: withHits };
}

/** The same candidate search for the questions: how often the judge would be shown a note that answers. */
async function relatedCandidates(backend: string, questions: Question[], roots: Map<string, string>): Promise<{ questions: number; evidence_shown: number }> {
  let shown = 0;
  for (const q of questions) {
    const found = await findCandidates(roots.get(q.corpus)!, toCandidate({ content: q.question }), { backend });
    if (found.some((n) => q.evidence.includes(n.path))) shown += 1;
  }
  return { questions: questions.length, evidence_shown: shown };
}

/** How many pairs of notes on one subject the gardener's candidate search joins (the pairs are in `garden`). */
async function pairsJudged(backend: string, garden: GardenCorpora): Promise<{ pairs: number; judged: number; both: number }> {
  let judged = 0;
  let both = 0;
  for (const [root, a, b] of garden.pairs) {
    const ab = (await tendCandidates(root, a, backend)).some((n) => n.path === b.path);
    const ba = (await tendCandidates(root, b, backend)).some((n) => n.path === a.path);
    if (ab || ba) judged += 1;
    if (ab && ba) both += 1;
  }
  return { pairs: garden.pairs.length, judged, both };
}

/** Each unrelated fact written as a note, one at a time, tended as the gardener would: counted when it is shown a note. */
async function gardenUnrelatedCalls(backend: string, garden: GardenCorpora): Promise<{ facts: number; judged: number }> {
  let judged = 0;
  let facts = 0;
  for (const root of garden.roots) {
    for (const fact of UNRELATED_FACTS) {
      facts += 1;
      const title = fact
        .split(/[,.;:]/)[0]
        .split(' ')
        .slice(0, 6)
        .join(' ');
      const n = writeNote(root, { slug: 'unrelated-fact', title, body: fact });
      try {
        if ((await tendCandidates(root, n, backend)).length) judged += 1;
      } finally {
        fs.rmSync(n.file);
      }
    }
  }
  return { facts, judged };
}

/** The corpora again, with the related pairs spread among them: the gardener's benches change notes, so they get their own copies. */
interface GardenCorpora {
  roots: string[];
  pairs: [string, Note, Note][];
}

const PAIRS = 72;

function gardenCorpora(roots: Map<string, string>, tmp: string): GardenCorpora {
  const copies = [...roots].map(([name, root]) => {
    const copy = path.join(tmp, `garden-${name}`);
    fs.cpSync(root, copy, { recursive: true });
    fs.rmSync(path.join(copy, '.zk'), { recursive: true, force: true });
    fs.mkdirSync(path.join(copy, '.zk'));
    return copy;
  });
  const pairs = relatedPairs(PAIRS).map(([a, b], i): [string, Note, Note] => {
    const root = copies[i % copies.length];
    return [root, writeNote(root, a), writeNote(root, b)];
  });
  return { roots: copies, pairs };
}

function printTable(results: BackendResult[]): void {
  const rows = ['| backend | slice | n | R@1 | R@5 | R@10 | MRR@10 |', '|---|---|---:|---:|---:|---:|---:|'];
  for (const r of results) {
    const line = (slice: string, s: Record<string, number>) =>
      rows.push(
        `| ${r.backend} | ${slice} | ${s.n} | ${s.recall_1.toFixed(3)} | ${s.recall_5.toFixed(3)} | ${s.recall_10.toFixed(3)} | ${s.mrr_10.toFixed(3)} |`,
      );
    line('overall', r.overall);
    for (const [c, s] of Object.entries(r.categories)) line(c, s);
  }
  rows.push(
    '',
    '| backend | median query ms | unrelated facts with ≥1 candidate (judge calls) | questions whose candidates include evidence |',
    '|---|---:|---:|---:|',
  );
  for (const r of results) {
    const unrelated = r.unrelated ? `${r.unrelated.searches_with_hits} / ${r.unrelated.facts}` : '-';
    const related = r.related ? `${r.related.evidence_shown} / ${r.related.questions}` : '-';
    rows.push(`| ${r.backend} | ${r.median_ms} | ${unrelated} | ${related} |`);
  }
  rows.push('', '| backend | gardener: pairs on one subject judged (either / both ways) | gardener: unrelated fact notes judged |', '|---|---:|---:|');
  for (const r of results) {
    const pairs = r.pairs ? `${r.pairs.judged} / ${r.pairs.pairs} (${r.pairs.both} both)` : '-';
    const unrelated = r.gardenUnrelated ? `${r.gardenUnrelated.judged} / ${r.gardenUnrelated.facts}` : '-';
    rows.push(`| ${r.backend} | ${pairs} | ${unrelated} |`);
  }
  const withContext = results.filter((r) => r.context);
  if (withContext.length) {
    const budgets = CONTEXT_BUDGETS.map((b) => `bundle ${b}`).join(' | ');
    rows.push('', `| backend | slice | n | top 5 | top 10 | ${budgets} |`, `|---|---|---:|---:|---:|${CONTEXT_BUDGETS.map(() => '---:').join('|')}|`);
    for (const r of withContext) {
      const c = r.context!;
      const line = (slice: string, s: { n: number; top_5: number; top_10: number; bundle: Record<string, number> }) =>
        rows.push(
          `| ${r.backend} | ${slice} | ${s.n} | ${s.top_5.toFixed(3)} | ${s.top_10.toFixed(3)} | ${CONTEXT_BUDGETS.map((b) => s.bundle[b].toFixed(3)).join(' | ')} |`,
        );
      line('overall', { n: c.questions, ...c });
      for (const [cat, s] of Object.entries(c.categories)) line(cat, s);
      rows.push(`| ${r.backend} | median tokens taken | | | | ${CONTEXT_BUDGETS.map((b) => c.median_tokens[b]).join(' | ')} |`);
      rows.push(`| ${r.backend} | median ms at 1000 | | | | ${c.median_ms} | | |`);
    }
  }
  process.stdout.write(`${rows.join('\n')}\n`);
}

// The library runs in a call (src/context.ts): this script's, with every adapter wired in (src/compose.ts).
await inCall(async () => {
  const dir = dataDir();
  const questions = fs
    .readFileSync(path.join(dir, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Question);
  const embedder = await configuredEmbedder();
  const wanted = (option('--backends') ?? (embedder ? 'rg,fts,vector,hybrid' : 'rg,fts')).split(',').map((b) => b.trim());
  if (!embedder && wanted.some((b) => b === 'vector' || b === 'hybrid')) {
    process.stderr.write('bench:recall: vector and hybrid need an embedder (the built-in one, or ZK_MEMORY_EMBED_BASE and ZK_MEMORY_EMBED_MODEL)\n');
    process.exit(2);
  }
  // --corpora conv_0,conv_1: only those conversations' questions (a quicker run).
  const only = option('--corpora')
    ?.split(',')
    .map((c) => c.trim());
  if (only) questions.splice(0, questions.length, ...questions.filter((q) => only.includes(q.corpus)));
  const { roots, tmp } = copyCorpora(dir, [...new Set(questions.map((q) => q.corpus))]);
  try {
    if (embedder?.background && wanted.some((b) => b === 'vector' || b === 'hybrid')) await embedAll(roots, embedder);
    const garden = process.argv.includes('--no-unrelated') ? undefined : gardenCorpora(roots, tmp);
    const results: BackendResult[] = [];
    for (const backend of wanted) {
      process.stderr.write(`${backend}: ${questions.length} questions\n`);
      const r = await runBackend(backend, questions, roots, embedder);
      if (backend === 'fts') r.context = await contextRecall(backend, questions, roots, r.ranks);
      if (!process.argv.includes('--no-unrelated')) {
        r.unrelated = await unrelatedJudgeCalls(backend, roots);
        r.related = await relatedCandidates(backend, questions, roots);
      }
      if (garden) {
        r.pairs = await pairsJudged(backend, garden);
        r.gardenUnrelated = await gardenUnrelatedCalls(backend, garden);
      }
      results.push(r);
    }
    printTable(results);
    const out = option('--json');
    if (out) fs.writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), data: dir, k: K, results }, null, 2)}\n`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
