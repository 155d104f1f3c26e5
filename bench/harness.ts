import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCorpus } from './generate.js';

/** The repository the benches run from (they are compiled to dist/bench/). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The value after `--name` on the command line, else `fallback`. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

// What the benches share: a generated corpus kept between runs, and an MCP server driven over raw
// stdio, timing each call as a client sees it.

/** A corpus of `size` generated notes under the temp folder, made once and kept for later runs. */
export function benchCorpus(name: string, size: number): string {
  const root = path.join(os.tmpdir(), `${name}-${size}`);
  const marker = path.join(root, '.zk', 'generated');
  if (!fs.existsSync(marker)) {
    fs.rmSync(root, { recursive: true, force: true });
    process.stderr.write(`generating ${size} notes in ${root}\n`);
    generateCorpus(root, size);
    fs.writeFileSync(marker, String(size));
  }
  return root;
}

export interface McpSession {
  /** One search call: its latency in ms and its hits. */
  search(query: string): Promise<{ ms: number; hits: { path: string }[] }>;
  /** The server's resident memory now, in MB (from /proc), or null where it cannot be told. */
  rssMb(): number | null;
  close(): Promise<void>;
}

/** Start `bin mcp --root root` and initialize the session. */
export async function mcpSession(bin: string, root: string, env: NodeJS.ProcessEnv): Promise<McpSession> {
  const child = spawn('node', [bin, 'mcp', '--root', root], { env, stdio: ['pipe', 'pipe', 'ignore'] });
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
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    async search(query) {
      const t0 = process.hrtime.bigint();
      const r = await request('tools/call', { name: 'search', arguments: { query, limit: 8 } });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.error || r.result?.structuredContent?.ok === false) throw new Error(`MCP search failed: ${JSON.stringify(r).slice(0, 300)}`);
      return { ms, hits: r.result.structuredContent.hits as { path: string }[] };
    },
    rssMb() {
      try {
        const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
        return kb ? Math.round(Number(kb) / 102.4) / 10 : null;
      } catch {
        return null;
      }
    },
    async close() {
      child.stdin.end();
      await new Promise((resolve) => child.on('close', resolve));
    },
  };
}
