// Imports at scale (docs/import-export.md#speed): 10,000 memory-json entities (with relations
// between them) and 10,000 mem0 memories, each into an empty corpus, by the CLI as a user runs it,
// then the same input again (every item skipped). The goal is under 60 s for each first import.
// usage: node dist/bench/import.js [--items 10000]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prng } from './generate.js';
import { REPO, arg } from './harness.js';

const BIN = path.join(REPO, 'bin', 'zk-memory.js');
const ITEMS = Number(arg('--items', '10000'));

function memoryJson(n: number): string {
  const r = prng(11);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(
      JSON.stringify({
        type: 'entity',
        name: `Entity ${i}`,
        entityType: i % 3 ? 'person' : 'project',
        observations: [`Observation ${i} one`, `Observation ${i} two, rated ${Math.floor(r() * 100)}`],
      }),
    );
  }
  // About one relation per entity, half of them to entities later in the file.
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ type: 'relation', from: `Entity ${i}`, to: `Entity ${Math.floor(r() * n)}`, relationType: 'knows' }));
  return `${lines.join('\n')}\n`;
}

function mem0(n: number): string {
  const results = Array.from({ length: n }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    memory: `Memory number ${i}: prefers option ${i % 7}`,
    hash: `h${i}`,
    metadata: { n: i },
    created_at: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString(),
    updated_at: null,
    user_id: 'bench-user',
    agent_id: 'bench-agent',
  }));
  return JSON.stringify({ results });
}

function timed(args: string[]): { seconds: number; answer: Record<string, unknown> } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('node', [BIN, ...args, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ZK_MEMORY_SERVER: 'off' } });
  const seconds = Math.round(Number(process.hrtime.bigint() - t0) / 1e7) / 100;
  if (r.status !== 0) throw new Error(`zk-memory ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { seconds, answer: JSON.parse(r.stdout) };
}

const cases: [string, string, (n: number) => string][] = [
  ['memory-json', 'memory.jsonl', memoryJson],
  ['mem0', 'mem0.json', mem0],
];
const rows: { format: string; items: number; first_s: number; again_s: number }[] = [];
for (const [format, file, make] of cases) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-bench-import-'));
  try {
    const src = path.join(dir, file);
    fs.writeFileSync(src, make(ITEMS));
    const root = path.join(dir, 'corpus');
    fs.mkdirSync(root);
    const first = timed(['import', format, src, '--root', root]);
    if (first.answer.created !== ITEMS) throw new Error(`${format}: created ${first.answer.created}, not ${ITEMS}`);
    const again = timed(['import', format, src, '--root', root]);
    if (again.answer.skipped !== ITEMS) throw new Error(`${format}: skipped ${again.answer.skipped} on the second import, not ${ITEMS}`);
    rows.push({ format, items: ITEMS, first_s: first.seconds, again_s: again.seconds });
    process.stderr.write(`${format}: ${ITEMS} items imported in ${first.seconds} s, again (all skipped) in ${again.seconds} s\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(
  `${['| format | items | import into an empty corpus | again (all skipped) |', '|---|---:|---:|---:|', ...rows.map((r) => `| ${r.format} | ${r.items} | ${r.first_s} s | ${r.again_s} s |`)].join('\n')}\n`,
);
const outDir = path.join(REPO, 'bench', 'out');
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(
  path.join(outDir, 'import.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.availableParallelism(), rows }, null, 2)}\n`,
);
