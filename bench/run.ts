import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { NOTE_FILES, rgPath } from '../src/adapters/ripgrep.js';
import { startEmbedWorker } from './embed-server.js';
import { REPO, arg, benchCorpus, mcpSession, rssMbOf, serverCall, serversUnder, type McpSession } from './harness.js';

// Every figure is a ratio of two medians measured side by side in one run (the two commands
// alternate, run after run), so a busy machine slows both alike.



const SIZES = arg('--sizes', '1000,10000,50000').split(',').map(Number);
const RUNS = Number(arg('--runs', '7'));
/** Whole-corpus commands read every note: fewer runs. */
const SLOW_RUNS = Number(arg('--slow-runs', '3'));
const MCP_SEARCHES = Number(arg('--mcp-searches', '60'));
/** How many searches one MCP session runs at the largest size while its memory is watched (0: none). */
const MCP_MEMORY_SEARCHES = Number(arg('--mcp-memory', '10000'));
/** How many searches the resident server answers at the largest size while its memory is watched (0: none). */
const SERVER_REQUESTS = Number(arg('--server-requests', '10000'));
/** The CLI to measure (another build's `bin/zk-memory.js` to compare). */
const BIN = path.resolve(arg('--bin', path.join(REPO, 'bin', 'zk-memory.js')));
/** Hybrid search needs every note embedded first: slow at scale, so only on request. */
const VECTORS = process.argv.includes('--vectors');
const OUT = arg('--out', path.join(REPO, 'bench', 'out', 'bench.json'));

interface Row {
  size: number | null;
  case: string;
  median_ms: number;
  baseline: string;
  baseline_ms: number;
  ratio: number;
}

// The in-process cases never use or start a resident server, so their figures stay comparable with
// those of builds before it; the server's cases set their own environment (serverEnv below).
const env = { ...process.env, ZK_MEMORY_BACKEND: '', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '', ZK_MEMORY_SERVER: 'off' };

/**
 * Wall time of one whole process, in ms, and its output when the command checks it; fails loudly
 * if the process fails. Its output is read through a pipe as a user's would be: ripgrep writing to
 * /dev/null stops at the first match.
 */
function runOnce(c: Cmd): { ms: number; stdout: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(c.cmd, c.args, { cwd: c.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: c.env ?? env, maxBuffer: 256 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status === null || ![0, 1].includes(r.status)) throw new Error(`${c.cmd} ${c.args.join(' ')} failed: ${r.status} ${r.stderr}`);
  return { ms, stdout: c.check ? r.stdout.toString('utf8') : '' };
}

function timeOnce(cmd: string, args: string[], cwd?: string): number {
  return runOnce({ cmd, args, cwd }).ms;
}

/** Peak resident memory of one process, in MB (GNU time), or null where it cannot be told. */
function peakRssMb(cmd: string, args: string[]): number | null {
  if (!fs.existsSync('/usr/bin/time')) return null;
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env, encoding: 'utf8' });
  const kb = Number(r.stderr.trim().split('\n').pop());
  return Number.isFinite(kb) ? round(kb / 1024) : null;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** A command to time: its environment is the bench's unless given; `check` sees its output after each run, untimed. */
type Cmd = { cmd: string; args: string[]; cwd?: string; env?: NodeJS.ProcessEnv; check?: (stdout: string) => void };

/** Medians of `a` and `b` run alternately `runs` times, with optional untimed steps before and after each `a`. */
function paired(a: Cmd, b: Cmd, runs = RUNS, before?: (i: number) => void, after?: (i: number) => void): [number, number] {
  const xa: number[] = [];
  const xb: number[] = [];
  for (let i = 0; i < runs; i++) {
    const rb = runOnce(b);
    xb.push(rb.ms);
    b.check?.(rb.stdout);
    before?.(i);
    const ra = runOnce(a);
    xa.push(ra.ms);
    a.check?.(ra.stdout);
    after?.(i);
  }
  return [median(xa), median(xb)];
}

const round = (x: number) => Math.round(x * 100) / 100;
const rows: Row[] = [];
const extra: Record<string, unknown> = {};
const add = (size: number | null, name: string, ms: number, baseline: string, baseMs: number) => {
  const row = { size, case: name, median_ms: round(ms), baseline, baseline_ms: round(baseMs), ratio: round(ms / baseMs) };
  rows.push(row);
  process.stderr.write(`${size ?? '-'}\t${name}\t${round(ms)} ms\t${round(ms / baseMs)}× ${baseline}\n`);
  return row;
};
/** The rows of the resident server's section, printed in a table of their own. */
const serverRows = new Set<Row>();
const addServer = (...a: Parameters<typeof add>) => void serverRows.add(add(...a));

const zk = (...args: string[]): Cmd => ({ cmd: 'node', args: [BIN, ...args] });
const VERSION = zk('--version');

/** The MCP server over raw stdio: the latency of each search call as the client sees it. */
async function mcpSearches(root: string, query: string, n: number, between?: (i: number) => void) {
  const session = await mcpSession(BIN, root, { ...env, ZK_MEMORY_BACKEND: 'fts' });
  const first = await session.search(query);
  const warm: number[] = [];
  for (let i = 0; i < n; i++) warm.push((await session.search(query)).ms);
  const changed: number[] = [];
  if (between) {
    for (let i = 0; i < 5; i++) {
      between(i);
      changed.push((await session.search(query)).ms);
    }
  }
  await session.close();
  return { first: first.ms, warm: median(warm), changed: changed.length ? median(changed) : null };
}

const embedServer = VECTORS ? await startEmbedWorker() : undefined;
const embed = embedServer ? ['--embed-base', embedServer.url, '--embed-model', 'bench-hashed-64'] : [];

// Start-up: the tool against node itself.
const [versionMs, nodeMs] = paired(VERSION, { cmd: 'node', args: ['-e', '0'] });
add(null, 'zk-memory --version', versionMs, 'node -e 0', nodeMs);

for (const size of SIZES) {
  const root = benchCorpus('zk-bench', size);
  // Leave what earlier runs added out of this run.
  for (const f of fs.readdirSync(root)) if (f.includes('-bench-added')) fs.rmSync(path.join(root, f));
  const query = 'kayak glacier sunrise';
  const terms = ['kayak', 'glacier', 'sunrise'];
  const search = (backend: string) => zk('--root', root, 'search', query, '--backend', backend);

  // ripgrep as the rg backend runs it: the same terms, the same files, counting every match.
  const rawRg: Cmd = {
    cmd: rgPath(),
    args: ['--only-matching', '--ignore-case', '--with-filename', '--null', '--no-heading', '--no-line-number', ...terms.flatMap((t) => ['-e', t]), ...NOTE_FILES],
    cwd: root,
  };
  const [rg, raw] = paired(search('rg'), rawRg);
  add(size, 'search --backend rg', rg, 'raw rg, same terms and files', raw);

  add(size, 'index --rebuild (once)', timeOnce('node', zk('--root', root, 'index', '--rebuild').args), 'zk-memory --version', versionMs);
  timeOnce('node', search('fts').args); // the first search after a rebuild settles the index
  const [fts, v1] = paired(search('fts'), VERSION);
  add(size, 'search --backend fts (unchanged)', fts, 'zk-memory --version', v1);

  const addOne = (i: number) => spawnSync('node', zk('--root', root, 'write', `bench-added-${Date.now()}-${i}`, `Bench added ${i}`, 'A kayak trip to the glacier at sunrise.').args, { env });
  const [added, v2] = paired(search('fts'), VERSION, RUNS, addOne);
  add(size, 'search --backend fts (1 note added by the tool)', added, 'zk-memory --version', v2);

  const first = fs.readdirSync(root).filter((f) => f.endsWith('.md')).sort()[0];
  const changeOne = (i: number) => spawnSync('node', zk('--root', root, 'merge', first, `kayak change ${i}`).args, { env });
  const [changed, v3] = paired(search('fts'), VERSION, RUNS, changeOne);
  add(size, 'search --backend fts (1 note changed by the tool)', changed, 'zk-memory --version', v3);

  const second = fs.readdirSync(root).filter((f) => f.endsWith('.md')).sort()[1];
  const editOne = (i: number) => fs.appendFileSync(path.join(root, second), `\nEdited by hand ${i}: kayak.\n`);
  const [edited, v4] = paired(search('fts'), VERSION, RUNS, editOne);
  add(size, 'search --backend fts (1 note edited in place by hand)', edited, 'zk-memory --version', v4);

  const rss = peakRssMb('node', search('fts').args);
  if (rss !== null) extra[`peak_rss_mb_fts_search_${size}`] = rss;

  for (const [name, cmd] of [['list', zk('--root', root, 'list')], ['status', zk('--root', root, 'status')], ['tend check', zk('--root', root, 'tend', 'check')]] as const) {
    const [ms, v] = paired(cmd, VERSION, SLOW_RUNS);
    add(size, name, ms, 'zk-memory --version', v);
  }

  const outside = (i: number) => spawnSync('node', zk('--root', root, 'merge', first, `glacier outside ${i}`).args, { env });
  const mcp = await mcpSearches(root, query, MCP_SEARCHES, outside);
  add(size, `MCP search, warm (median of ${MCP_SEARCHES})`, mcp.warm, 'zk-memory --version', versionMs);
  add(size, 'MCP search, first of the session', mcp.first, 'zk-memory --version', versionMs);
  if (mcp.changed !== null) add(size, 'MCP search after another process changed a note', mcp.changed, 'MCP search, warm', mcp.warm);

  if (size === Math.max(...SIZES) && MCP_MEMORY_SEARCHES > 0) {
    // One long session, as an agent's server lives: rotating queries, and every 1,000 searches a
    // note changed by another process (the index is refreshed and its table reopened).
    const queries = ['kayak glacier sunrise', 'river pipeline', 'Priya rollback export', 'medicine recipe', 'birthday painting'];
    const session = await mcpSession(BIN, root, { ...env, ZK_MEMORY_BACKEND: 'fts' });
    for (let i = 0; i < 100; i++) await session.search(queries[i % queries.length]);
    const start = session.rssMb();
    const samples: number[] = [];
    for (let i = 1; i <= MCP_MEMORY_SEARCHES; i++) {
      await session.search(queries[i % queries.length]);
      if (i % 1000 === 0) {
        samples.push(session.rssMb() ?? 0);
        outside(i);
      }
    }
    await session.close();
    if (start !== null) {
      extra[`mcp_rss_mb_after_100_searches_${size}`] = start;
      extra[`mcp_rss_mb_every_1000_searches_${size}`] = samples.join(' ');
      process.stderr.write(`${size}\tMCP resident memory: ${start} MB after 100 searches; every 1,000 after: ${samples.join(', ')} MB\n`);
    }
  }

  if (VECTORS) {
    add(size, 'index, every note embedded (once)', timeOnce('node', zk('--root', root, 'index', ...embed).args), 'zk-memory --version', versionMs);
    const [hybrid, ftsFresh] = paired(zk('--root', root, 'search', query, '--backend', 'hybrid', ...embed), search('fts'));
    add(size, 'search --backend hybrid (fresh)', hybrid, 'search --backend fts', ftsFresh);
  }
}
await embedServer?.stop();

const table = [
  '| notes | case | median ms | baseline | baseline ms | ratio |',
  '|---:|---|---:|---|---:|---:|',
  ...rows.map((r) => `| ${r.size ?? '-'} | ${r.case} | ${r.median_ms} | ${r.baseline} | ${r.baseline_ms} | ${r.ratio} |`),
].join('\n');
process.stdout.write(`${table}\n`);
for (const [k, v] of Object.entries(extra)) process.stdout.write(`${k}: ${v}\n`);
fs.mkdirSync(path.dirname(OUT), { recursive: true });
const result = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, runs: RUNS, bin: BIN, rows, extra };
fs.writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), OUT)}\n`);
