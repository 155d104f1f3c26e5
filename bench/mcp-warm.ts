import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The MCP server's warm search alone, with the default freshness settings (every search sees
// every change): `node dist/bench/mcp-warm.js ROOT [--bin PATH] [--searches N]`. The corpus is
// indexed first; the median is of N searches after the first.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const root = process.argv[2];
const BIN = path.resolve(arg('--bin', path.join(REPO, 'bin', 'zk-memory.js')));
const N = Number(arg('--searches', '60'));
const env = { ...process.env, ZK_MEMORY_BACKEND: 'fts', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '', ZK_MEMORY_INDEX_SCAN_SECONDS: '' };

spawnSync('node', [BIN, '--root', root, 'index'], { env, stdio: 'ignore' });
const child = spawn('node', [BIN, 'mcp', '--root', root], { env, stdio: ['pipe', 'pipe', 'ignore'] });
let rest = '';
const waiting: ((line: string) => void)[] = [];
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk: string) => {
  const parts = (rest + chunk).split('\n');
  rest = parts.pop() ?? '';
  for (const line of parts) waiting.shift()?.(line);
});
let id = 0;
const request = (method: string, params: unknown) =>
  new Promise<any>((resolve) => {
    waiting.push((line) => resolve(JSON.parse(line)));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`);
  });
const search = async () => {
  const t0 = process.hrtime.bigint();
  const r = await request('tools/call', { name: 'search', arguments: { query: 'kayak glacier sunrise', limit: 8 } });
  if (r.error || r.result?.structuredContent?.ok === false) throw new Error(`search failed: ${JSON.stringify(r).slice(0, 300)}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
};
await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
const first = await search();
const warm: number[] = [];
for (let i = 0; i < N; i++) warm.push(await search());
child.stdin.end();
await new Promise((resolve) => child.on('close', resolve));
warm.sort((a, b) => a - b);
const r2 = (x: number) => Math.round(x * 100) / 100;
console.log(JSON.stringify({ root, bin: BIN, first: r2(first), median: r2(warm[Math.floor(N / 2)]), p90: r2(warm[Math.floor(N * 0.9)]) }));
