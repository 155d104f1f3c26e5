import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rgPath } from '../src/adapters/ripgrep.js';
import { startEmbedWorker } from './embed-server.js';
import { generateCorpus } from './generate.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(REPO, 'bin', 'zk-memory.js');

interface Row {
  size: number | null;
  case: string;
  median_ms: number;
  baseline: string;
  baseline_ms: number;
  ratio: number;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const SIZES = arg('--sizes', '1000,10000,50000').split(',').map(Number);
const RUNS = Number(arg('--runs', '7'));

/** Wall time of one whole process, in ms; fails loudly if the process fails. */
function timeOnce(cmd: string, args: string[], okCodes = [0, 1]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ZK_MEMORY_BACKEND: '' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status === null || !okCodes.includes(r.status)) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.status} ${r.stderr}`);
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median of RUNS timings, with an optional untimed step before each run. */
function measure(cmd: string, args: string[], before?: (i: number) => void): number {
  const xs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    before?.(i);
    xs.push(timeOnce(cmd, args));
  }
  return median(xs);
}

const zk = (...args: string[]) => [BIN, ...args];
const rows: Row[] = [];
const add = (size: number | null, name: string, ms: number, baseline: string, baseMs: number) =>
  rows.push({ size, case: name, median_ms: round(ms), baseline, baseline_ms: round(baseMs), ratio: round(ms / baseMs) });
const round = (x: number) => Math.round(x * 100) / 100;

// Hybrid search embeds through a local server (hashed bag-of-words vectors), so the figures are the tool's own cost.
const embedServer = await startEmbedWorker();
const embed = ['--embed-base', embedServer.url, '--embed-model', 'bench-hashed-64'];

// Start-up: the tool against node itself.
const nodeMs = measure('node', ['-e', '0']);
add(null, 'zk-memory --version', measure('node', zk('--version')), 'node -e 0', nodeMs);

for (const size of SIZES) {
  const root = path.join(os.tmpdir(), `zk-bench-${size}`);
  const marker = path.join(root, '.zk', 'generated');
  if (!fs.existsSync(marker)) {
    fs.rmSync(root, { recursive: true, force: true });
    process.stderr.write(`generating ${size} notes in ${root}\n`);
    generateCorpus(root, size);
    fs.writeFileSync(marker, String(size));
  }
  // Leave what earlier runs added out of this run.
  for (const f of fs.readdirSync(root)) if (f.includes('-bench-added')) fs.rmSync(path.join(root, f));
  const query = 'kayak glacier sunrise';
  const rawRg = measure(rgPath(), ['-l', '-i', '-F', '-e', 'kayak', '-e', 'glacier', '-e', 'sunrise', '--max-depth', '1', '--glob', '*.md', root]);
  add(size, 'search --backend rg', measure('node', zk('--root', root, 'search', query, '--backend', 'rg')), 'rg -l -i -F', rawRg);

  const built = timeOnce('node', zk('--root', root, 'index', '--rebuild'));
  add(size, 'index --rebuild (once)', built, 'node -e 0', nodeMs);
  add(size, 'search --backend fts (fresh index)', measure('node', zk('--root', root, 'search', query, '--backend', 'fts')), 'rg -l -i -F', rawRg);

  const addOne = (i: number) =>
    spawnSync('node', zk('--root', root, 'write', `bench-added-${Date.now()}-${i}`, `Bench added ${i}`, 'A kayak trip to the glacier at sunrise.'));
  add(size, 'search --backend fts (1 note added)', measure('node', zk('--root', root, 'search', query, '--backend', 'fts'), addOne), 'rg -l -i -F', rawRg);

  const first = fs.readdirSync(root).find((f) => f.endsWith('.md'))!;
  const changeOne = (i: number) => spawnSync('node', zk('--root', root, 'merge', first, `kayak change ${i}`));
  const ftsChanged = measure('node', zk('--root', root, 'search', query, '--backend', 'fts'), changeOne);
  add(size, 'search --backend fts (1 note changed)', ftsChanged, 'rg -l -i -F', rawRg);

  add(size, 'index, every note embedded (once)', timeOnce('node', zk('--root', root, 'index', ...embed)), 'node -e 0', nodeMs);
  const ftsFresh = measure('node', zk('--root', root, 'search', query, '--backend', 'fts'));
  add(size, 'search --backend hybrid (fresh)', measure('node', zk('--root', root, 'search', query, '--backend', 'hybrid', ...embed)), 'search --backend fts', ftsFresh);
  add(size, 'search --backend hybrid (1 note changed: re-embedded)', measure('node', zk('--root', root, 'search', query, '--backend', 'hybrid', ...embed), changeOne), 'fts, 1 note changed', ftsChanged);
}
await embedServer.stop();

const table = [
  '| notes | case | median ms | baseline | baseline ms | ratio |',
  '|---:|---|---:|---|---:|---:|',
  ...rows.map((r) => `| ${r.size ?? '-'} | ${r.case} | ${r.median_ms} | ${r.baseline} | ${r.baseline_ms} | ${r.ratio} |`),
].join('\n');
process.stdout.write(`${table}\n`);
const outDir = path.join(REPO, 'bench', 'out');
fs.mkdirSync(outDir, { recursive: true });
const result = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, runs: RUNS, rows };
fs.writeFileSync(path.join(outDir, 'bench.json'), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), path.join(outDir, 'bench.json'))}\n`);
