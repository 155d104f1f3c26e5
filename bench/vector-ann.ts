import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openTable } from '../src/search/lance.js';
import { nearest, readVectorState } from '../src/search/vector.js';
import { hashedBagOfWords, startEmbedWorker } from './embed-server.js';
import { prng } from './generate.js';
import { REPO, arg, benchCorpus, inCall } from './harness.js';

// Vector search at scale: a `search --backend vector` process against a `search --backend fts`
// one (run alternately), and how far the approximate index's top 10 agrees with an exact scan.

const BIN = path.join(REPO, 'bin', 'zk-memory.js');

const SIZES = arg('--sizes', '20000,50000').split(',').map(Number);
const RUNS = Number(arg('--runs', '7'));
const QUERIES = Number(arg('--queries', '200'));
const OUT = arg('--out', path.join(REPO, 'bench', 'out', 'vector-ann.json'));
const MODEL = 'bench-hashed-64';

const env = { ...process.env, ZK_MEMORY_BACKEND: '', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '' };
const round = (x: number) => Math.round(x * 100) / 100;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timeOnce(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('node', [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env, maxBuffer: 64 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`zk-memory ${args.join(' ')} failed: ${r.status} ${r.stderr}`);
  return ms;
}

/** Short queries of topic words and names, as an agent asks (the generator's vocabulary). */
function queries(n: number): string[] {
  const words = (
    'deploy rollback database migration backup kayak glacier sunrise garden tomato birthday partner piano lesson ' +
    'doctor appointment flight hotel budget invoice customer incident outage recipe bread marathon mortgage landlord ' +
    'Judy Sam Maya Priya Noah'
  ).split(' ');
  const r = prng(7);
  return Array.from({ length: n }, () => Array.from({ length: 2 + Math.floor(r() * 3) }, () => words[Math.floor(r() * words.length)]).join(' '));
}

// The library runs in a call (src/context.ts): this script's, with every adapter wired in (src/compose.ts).
await inCall(async () => {
  const server = await startEmbedWorker();
  const embed = ['--embed-base', server.url, '--embed-model', MODEL];
  const rows: Record<string, unknown>[] = [];

  for (const size of SIZES) {
    // A corpus of its own: the main bench's corpora carry no vectors and are left as they are.
    const root = benchCorpus('zk-bench-ann', size);
    const indexMs = timeOnce(['--root', root, 'index', ...embed]);
    const state = readVectorState(root);
    if (!state?.ann) throw new Error(`no approximate index at ${size} notes`);

    const query = 'kayak glacier sunrise';
    const vector: number[] = [];
    const fts: number[] = [];
    timeOnce(['--root', root, 'search', query, '--backend', 'vector', ...embed]);
    for (let i = 0; i < RUNS; i++) {
      fts.push(timeOnce(['--root', root, 'search', query, '--backend', 'fts']));
      vector.push(timeOnce(['--root', root, 'search', query, '--backend', 'vector', ...embed]));
    }

    const table = (await openTable(root, 'vectors'))!;
    let agree = 0;
    const annMs: number[] = [];
    const exactMs: number[] = [];
    for (const q of queries(QUERIES)) {
      const v = hashedBagOfWords(q);
      let t0 = process.hrtime.bigint();
      const approx = await nearest(table, v, 10, false, state.ann);
      annMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      t0 = process.hrtime.bigint();
      const exact = (await table
        .vectorSearch(v)
        .distanceType('cosine')
        .bypassVectorIndex()
        .where('current = true')
        .select(['path', '_distance'])
        .limit(10)
        .toArray()) as { path: string; _distance: number }[];
      exactMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      // A hit agrees when it is one of the exact top 10, or as near as the 10th (a tie it could equally be).
      const tenth = exact.at(-1)?._distance ?? Infinity;
      const names = new Set(exact.map((r) => r.path));
      agree += approx.filter((h) => names.has(h.name) || 1 - h.score <= tenth + 1e-6).length;
    }
    const row = {
      notes: size,
      partitions: state.ann.partitions,
      index_rows: state.ann.rows,
      index_with_embedding_ms: round(indexMs),
      cli_vector_ms: round(median(vector)),
      cli_fts_ms: round(median(fts)),
      cli_ratio: round(median(vector) / median(fts)),
      query_ann_ms: round(median(annMs)),
      query_exact_ms: round(median(exactMs)),
      top10_agreement: round(agree / (QUERIES * 10)),
    };
    rows.push(row);
    process.stderr.write(`${JSON.stringify(row)}\n`);
  }
  await server.stop();

  process.stdout.write(
    [
      '| notes | vector search ms | fts search ms | ratio | in-process ANN ms | in-process exact ms | top-10 agreement |',
      '|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        (r) => `| ${r.notes} | ${r.cli_vector_ms} | ${r.cli_fts_ms} | ${r.cli_ratio} | ${r.query_ann_ms} | ${r.query_exact_ms} | ${r.top10_agreement} |`,
      ),
    ].join('\n') + '\n',
  );
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(
    OUT,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, runs: RUNS, queries: QUERIES, rows }, null, 2)}\n`,
  );
});
