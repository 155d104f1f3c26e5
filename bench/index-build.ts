// Full-text index builds at tens of thousands of notes, with the LanceDB runtime the tool sets up
// and with the single-thread CPU pool a host with 2 CPUs gets by default (the configuration in
// which lance's full-text build can deadlock, lancedb/lancedb#3568). A build that does not finish
// within the time limit is reported as hung.
// usage: node dist/bench/index-build.js [--notes 45000] [--limit-seconds 300]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateCorpus, prng } from './generate.js';
import { REPO, arg } from './harness.js';

const BIN = path.join(REPO, 'bin', 'zk-memory.js');

const NOTES = Number(arg('--notes', '45000'));
const LIMIT_S = Number(arg('--limit-seconds', '300'));

/**
 * Notes with a large vocabulary (200,000 made-up words drawn with a Zipf-like skew), so the
 * posting lists span many output batches, as real text does.
 */
function generateWideVocabulary(root: string, count: number): void {
  fs.mkdirSync(path.join(root, '.zk'), { recursive: true });
  const r = prng(7);
  const vocab = Array.from({ length: 200_000 }, () =>
    Array.from({ length: 4 + Math.floor(r() * 7) }, () => String.fromCharCode(97 + Math.floor(r() * 26))).join(''),
  );
  const word = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(r() * Math.log(vocab.length))) - 1)];
  for (let i = 0; i < count; i++) {
    const body = Array.from({ length: 250 }, word).join(' ');
    fs.writeFileSync(path.join(root, `20260101-page-${i}.md`), `# Page ${i} ${word()}\n\n${body}\n`);
  }
}

function build(root: string, env: Record<string, string | undefined>): { seconds: number; hung: boolean; code: number | null } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('node', [BIN, '--root', root, 'index', '--rebuild'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: LIMIT_S * 1000,
    killSignal: 'SIGKILL',
    env: { ...process.env, ZK_MEMORY_INDEX_DIR: '', ...env },
  });
  const seconds = Math.round(Number(process.hrtime.bigint() - t0) / 1e7) / 100;
  const hung = r.signal === 'SIGKILL';
  if (!hung && r.status !== 0) throw new Error(`index --rebuild failed (${r.status}): ${r.stderr}`);
  return { seconds, hung, code: r.status };
}

const corpora: [string, (root: string, n: number) => void][] = [
  ['generated notes', (root, n) => generateCorpus(root, n)],
  ['wide vocabulary', generateWideVocabulary],
];
const runtimes: [string, Record<string, string | undefined>][] = [
  ['as configured by the tool', { LANCE_CPU_THREADS: undefined }],
  ['one-thread CPU pool (a 2-CPU host without the setting)', { LANCE_CPU_THREADS: '1' }],
];
const rows: { corpus: string; notes: number; runtime: string; seconds: number; hung: boolean }[] = [];
for (const [name, generate] of corpora) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-bench-index-'));
  try {
    process.stderr.write(`generating ${NOTES} notes (${name}) in ${root}\n`);
    generate(root, NOTES);
    for (const [runtime, env] of runtimes) {
      const r = build(root, env);
      rows.push({ corpus: name, notes: NOTES, runtime, seconds: r.seconds, hung: r.hung });
      process.stderr.write(`${name}, ${runtime}: ${r.hung ? `hung (killed after ${LIMIT_S} s)` : `${r.seconds} s`}\n`);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
const table = [
  '| corpus | notes | LanceDB runtime | index --rebuild |',
  '|---|---:|---|---:|',
  ...rows.map((r) => `| ${r.corpus} | ${r.notes} | ${r.runtime} | ${r.hung ? `hung (> ${LIMIT_S} s)` : `${r.seconds} s`} |`),
].join('\n');
process.stdout.write(`${table}\n`);
const outDir = path.join(REPO, 'bench', 'out');
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(
  path.join(outDir, 'index-build.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.availableParallelism(), rows }, null, 2)}\n`,
);
