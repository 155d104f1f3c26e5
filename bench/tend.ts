// How long `tend check` takes on a large corpus: whole-process median against `node -e 0`; then,
// for one note of N links (a hub), every tend action against `read` of the same note, run
// alternately so a busy machine slows both alike.
// Usage: node dist/bench/tend.js [--notes 10000] [--links 5] [--runs 3] [--hubs 2000,8000,40000|none]
//   [--bin PATH] (another build's bin/zk-memory.js) [--timeout 600] (seconds one process may take)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './harness.js';

function text(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

function arg(name: string, fallback: number): number {
  const v = Number(text(name, String(fallback)));
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} takes a whole number >= 1`);
  return v;
}

const BIN = path.resolve(text('--bin', path.join(REPO, 'bin', 'zk-memory.js')));
const NOTES = arg('--notes', 10_000);
const LINKS = arg('--links', 5);
const RUNS = arg('--runs', 3);
const HUBS = text('--hubs', '2000,8000,40000') === 'none' ? [] : text('--hubs', '2000,8000,40000').split(',').map(Number);
const TIMEOUT_MS = arg('--timeout', 600) * 1000;

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
    '---',
    `uuid: ${uuidOf(i)}`,
    `title: Note ${i}`,
    'date: 2026-11-30',
    '---',
    '',
    `# Note ${i}`,
    '',
    'Some prose about deploys, rollbacks and the people who run them. '.repeat(4),
    '',
    '## Details',
    '',
    ...links,
    '',
    '```md',
    `[not a link](${nameOf((i + 1) % NOTES)})`,
    '```',
    '',
    'More at [the docs](https://example.org/docs.md).',
    '',
  ].join('\n');
}

function generate(root: string): void {
  fs.mkdirSync(path.join(root, '.zk'), { recursive: true });
  for (let i = 0; i < NOTES; i++) fs.writeFileSync(path.join(root, nameOf(i)), noteText(i));
}

/** Wall time of one process in ms, or null when it ran past the timeout (it is then killed). */
function timeOnce(args: string[]): number | null {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('node', args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: TIMEOUT_MS, maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') return null;
  // 1 is `tend check` finding stale or broken links
  if (r.status !== 0 && r.status !== 1) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

/** The report must say what the corpus holds, or the timing measures the wrong thing. */
function verify(root: string): void {
  const r = spawnSync('node', [BIN, 'tend', 'check', '--root', root, '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const counts = JSON.parse(r.stdout).counts;
  const want = { ok: NOTES * (LINKS - 1), stale: 0, broken: 0, unanchored: NOTES };
  if (JSON.stringify(counts) !== JSON.stringify(want)) throw new Error(`unexpected counts ${JSON.stringify(counts)}, want ${JSON.stringify(want)}`);
}

const round = (x: number) => Math.round(x);

function corpusCheck(): void {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-bench-tend-'));
  try {
    const t0 = Date.now();
    generate(root);
    process.stderr.write(`generated ${NOTES} notes x ${LINKS} links in ${root} (${Date.now() - t0} ms)\n`);
    verify(root);
    const baseline = median(Array.from({ length: RUNS }, () => timeOnce(['-e', '0'])!));
    const check = median(Array.from({ length: RUNS }, () => timeOnce([BIN, 'tend', 'check', '--root', root])!));
    console.log(
      JSON.stringify({
        notes: NOTES,
        links: NOTES * LINKS,
        runs: RUNS,
        tend_check_median_ms: round(check),
        node_baseline_ms: round(baseline),
        ratio: Math.round((check / baseline) * 10) / 10,
      }),
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// One note of N links to the same few notes (HUB_TARGETS of them, a link to a heading every third
// line): what costs is the hub's own size. Two versions of it: links without anchors (robustify
// anchors every one; the hub has no uuid, which mint gives it), and anchored links whose targets
// were renamed (repair points every one at the new name).
const HUB = '20261201-hub.md';
const HUB_TARGETS = 1000;
const target = (j: number) => `20261101-target-${j}.md`;
const oldName = (j: number) => `20261001-old-${j}.md`;
const hubLine = (k: number, to: string, anchor: string) =>
  `- see [target ${k % HUB_TARGETS}](${to}${k % 3 === 1 ? '#details' : ''})${anchor} for the background`;

function hubText(n: number, stale: boolean): string {
  const lines = Array.from({ length: n }, (_, k) => {
    const j = k % HUB_TARGETS;
    return stale ? hubLine(k, oldName(j), ` <!-- uuid: ${uuidOf(j)} -->`) : hubLine(k, target(j), '');
  });
  const uuid = stale ? `uuid: ${uuidOf(999_999)}\n` : '';
  return `---\n${uuid}title: Hub\n---\n\n# Hub\n\nWhere every topic is.\n\n${lines.join('\n')}\n`;
}

function hubCorpus(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-bench-hub-'));
  fs.mkdirSync(path.join(root, '.zk'));
  for (let j = 0; j < HUB_TARGETS; j++) {
    fs.writeFileSync(path.join(root, target(j)), `---\nuuid: ${uuidOf(j)}\ntitle: Target ${j}\n---\n\n# Target ${j}\n\n## Details\n\nText.\n`);
  }
  return root;
}

const count = (s: string, needle: string) => s.split(needle).length - 1;

interface HubCase {
  name: string;
  args: string[];
  /** The hub's text before every run (a write changes it). */
  stale: boolean;
  /** What the hub must hold after a write, or the timing measured the wrong thing. */
  check?: (after: string, n: number) => boolean;
}

const HUB_CASES: HubCase[] = [
  { name: 'tend check', args: ['tend', 'check'], stale: false },
  { name: 'tend robustify', args: ['tend', 'robustify'], stale: false },
  { name: 'tend robustify --write', args: ['tend', 'robustify', '--write'], stale: false, check: (t, n) => count(t, '<!-- uuid:') === n },
  { name: 'tend mint --write', args: ['tend', 'mint', '--write'], stale: false, check: (t) => /^---\nuuid: /.test(t) },
  { name: 'tend check (stale)', args: ['tend', 'check'], stale: true },
  { name: 'tend repair', args: ['tend', 'repair'], stale: true },
  { name: 'tend repair --write', args: ['tend', 'repair', '--write'], stale: true, check: (t) => !t.includes('-old-') },
];

/** Every tend action on a hub of n links, each against `read` of the same hub, alternately. */
function hubRows(root: string, n: number): void {
  const file = path.join(root, HUB);
  const texts = { fresh: hubText(n, false), stale: hubText(n, true) };
  const read = [BIN, 'read', HUB, '--root', root];
  for (const c of HUB_CASES) {
    const xs: number[] = [];
    const base: number[] = [];
    let unfinished = false;
    for (let i = 0; i < RUNS && !unfinished; i++) {
      fs.writeFileSync(file, c.stale ? texts.stale : texts.fresh);
      const r = timeOnce(read);
      if (r !== null) base.push(r);
      const ms = timeOnce([BIN, ...c.args, '--root', root]);
      if (ms === null) unfinished = true;
      else xs.push(ms);
      if (ms !== null && c.check && !c.check(fs.readFileSync(file, 'utf8'), n)) throw new Error(`${c.name} on ${n} links left the hub wrong`);
    }
    const readMs = base.length ? median(base) : NaN;
    const row = unfinished
      ? { hub_links: n, case: c.name, median_ms: null, unfinished_after_ms: TIMEOUT_MS, baseline: 'read', baseline_ms: round(readMs) }
      : {
          hub_links: n,
          case: c.name,
          median_ms: round(median(xs)),
          baseline: 'read',
          baseline_ms: round(readMs),
          ratio: Math.round((median(xs) / readMs) * 100) / 100,
        };
    console.log(JSON.stringify(row));
  }
}

corpusCheck();
for (const n of HUBS) {
  const root = hubCorpus();
  try {
    hubRows(root, n);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
