// How long `tend check` takes on a large corpus: whole-process median against `node -e 0`.
// Usage: node dist/bench/tend.js [--notes 10000] [--links 5] [--runs 3]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './harness.js';

const BIN = path.join(REPO, 'bin', 'zk-memory.js');

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} takes a whole number >= 1`);
  return v;
}

const NOTES = arg('--notes', 10_000);
const LINKS = arg('--links', 5);
const RUNS = arg('--runs', 3);

const uuidOf = (i: number) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-${(i * 7919).toString(16).padStart(12, '0').slice(-12)}`;
const nameOf = (i: number) => `2026${String(1 + (i % 12)).padStart(2, '0')}${String(1 + (i % 28)).padStart(2, '0')}-note-${i}.md`;

/**
 * A note with headings and LINKS links to other notes: anchored ones, one to a heading, the last
 * one plain (unanchored); plus a link in a code fence and a URL, which tend must skip.
 */
function noteText(i: number): string {
  const links: string[] = [];
  for (let k = 0; k < LINKS; k++) {
    const j = (i * 7 + k * 131 + 1) % NOTES;
    const target = k === 1 ? `${nameOf(j)}#details` : nameOf(j);
    const anchor = k === LINKS - 1 ? '' : ` <!-- uuid: ${uuidOf(j)} -->`;
    links.push(`- see [note ${j}](${target})${anchor} for the ${k === 1 ? 'details' : 'background'}`);
  }
  return [
    '---', `uuid: ${uuidOf(i)}`, `title: Note ${i}`, 'date: 2026-11-30', '---', '',
    `# Note ${i}`, '', 'Some prose about deploys, rollbacks and the people who run them. '.repeat(4), '',
    '## Details', '', ...links, '', '```md', `[not a link](${nameOf((i + 1) % NOTES)})`, '```', '',
    'More at [the docs](https://example.org/docs.md).', '',
  ].join('\n');
}

function generate(root: string): void {
  fs.mkdirSync(path.join(root, '.zk'), { recursive: true });
  for (let i = 0; i < NOTES; i++) fs.writeFileSync(path.join(root, nameOf(i)), noteText(i));
}

function timeOnce(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('node', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function median(args: string[]): number {
  const xs = Array.from({ length: RUNS }, () => timeOnce(args)).sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}

/** The report must say what the corpus holds, or the timing measures the wrong thing. */
function verify(root: string): void {
  const r = spawnSync('node', [BIN, 'tend', 'check', '--root', root, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const counts = JSON.parse(r.stdout).counts;
  const want = { ok: NOTES * (LINKS - 1), stale: 0, broken: 0, unanchored: NOTES };
  if (JSON.stringify(counts) !== JSON.stringify(want)) throw new Error(`unexpected counts ${JSON.stringify(counts)}, want ${JSON.stringify(want)}`);
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-bench-tend-'));
try {
  const t0 = Date.now();
  generate(root);
  process.stderr.write(`generated ${NOTES} notes x ${LINKS} links in ${root} (${Date.now() - t0} ms)\n`);
  verify(root);
  const baseline = median(['-e', '0']);
  const check = median([BIN, 'tend', 'check', '--root', root]);
  const round = (x: number) => Math.round(x);
  console.log(JSON.stringify({
    notes: NOTES, links: NOTES * LINKS, runs: RUNS,
    tend_check_median_ms: round(check), node_baseline_ms: round(baseline), ratio: Math.round((check / baseline) * 10) / 10,
  }));
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
