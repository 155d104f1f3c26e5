import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO, arg, mcpSession } from './harness.js';

// The MCP server's warm search alone, with the default freshness settings (every search sees
// every change): `node dist/bench/mcp-warm.js ROOT [--bin PATH] [--searches N]`. The corpus is
// indexed first; the median is of N searches after the first.

const root = process.argv[2];
const BIN = path.resolve(arg('--bin', path.join(REPO, 'bin', 'zk-memory.js')));
const N = Number(arg('--searches', '60'));
const env = { ...process.env, ZK_MEMORY_BACKEND: 'fts', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '', ZK_MEMORY_INDEX_SCAN_SECONDS: '' };

spawnSync('node', [BIN, '--root', root, 'index'], { env, stdio: 'ignore' });
const session = await mcpSession(BIN, root, env);
const query = 'kayak glacier sunrise';
const first = (await session.search(query)).ms;
const warm: number[] = [];
for (let i = 0; i < N; i++) warm.push((await session.search(query)).ms);
await session.close();
warm.sort((a, b) => a - b);
const r2 = (x: number) => Math.round(x * 100) / 100;
console.log(JSON.stringify({ root, bin: BIN, first: r2(first), median: r2(warm[Math.floor(N / 2)]), p90: r2(warm[Math.floor(N * 0.9)]) }));
