import { spawn, spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SERVER_PROCESS } from '../src/process.js';
import { rssMbOf } from './harness.js';

// MCP over HTTP under load (docs/http.md): `serve --http` on 127.0.0.1, CLIENTS SDK clients at
// once, each making `calls` calls alternating search and merge (into a note of its own), timed as
// the client sees them. Every call must succeed; the figures are per-call latencies.

export interface HttpFigures {
  searchP50: number;
  searchP99: number;
  mergeP50: number;
  mergeP99: number;
  rssBefore: number | null;
  rssAfter: number | null;
  /**
   * The server's peak RSS (MB) in each fifth of the calls, sampled every fiftieth: V8 collects
   * lazily, so RSS rises and falls, and flat memory is peaks that do not climb.
   */
  rssPeaks: (number | null)[];
}

const CLIENTS = 20;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

export async function httpLoad(bin: string, root: string, env: NodeJS.ProcessEnv, query: string, calls: number): Promise<HttpFigures> {
  const made = spawnSync('node', [bin, '--root', root, '--json', 'token', 'create', `bench-${process.pid}`], { env, encoding: 'utf8' });
  const token = JSON.parse(made.stdout).token as string;
  // Started as a server started in the background is (src/process.ts `SERVER_PROCESS`), as docs/server.md#memory advises.
  const child = spawn('node', [...SERVER_PROCESS.nodeArgs, bin, 'serve', '--root', root, '--http', '127.0.0.1:0'], {
    env: { ...SERVER_PROCESS.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    let said = '';
    child.stderr!.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (t: string) => {
        said += t;
        const m = /MCP over HTTP at (\S+)/.exec(said);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve --http exited ${code}: ${said}`)));
    });
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        const client = new Client({ name: 'zk-memory-bench', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
        return client;
      }),
    );
    const call = async (client: Client, name: string, args: Record<string, unknown>) => {
      const t = performance.now();
      const r = (await client.callTool({ name, arguments: args })) as { structuredContent?: { ok?: boolean; note?: { path: string } } };
      if (!r.structuredContent?.ok) throw new Error(`${name} over HTTP failed: ${JSON.stringify(r).slice(0, 300)}`);
      return { ms: performance.now() - t, r: r.structuredContent };
    };
    const rssBefore = rssMbOf(child.pid!);
    const searches: number[] = [];
    const merges: number[] = [];
    const rssPeaks: (number | null)[] = [];
    const total = CLIENTS * calls;
    const sample = () => {
      const done = searches.length + merges.length;
      if (done % Math.max(1, Math.floor(total / 50)) !== 0) return;
      const fifth = Math.min(4, Math.floor((5 * (done - 1)) / total));
      const rss = rssMbOf(child.pid!);
      rssPeaks[fifth] = Math.max(rssPeaks[fifth] ?? 0, rss ?? 0) || null;
    };
    const stamp = Date.now();
    await Promise.all(
      clients.map(async (client, c) => {
        const own = (await call(client, 'write', { slug: `bench-http-${stamp}-${c}`, title: `Bench over HTTP ${c}`, body: 'Merged into by the HTTP bench.' })).r
          .note!.path;
        for (let i = 0; i < calls; i++) {
          if (i % 2 === 0) searches.push((await call(client, 'search', { query })).ms);
          else merges.push((await call(client, 'merge', { ref: own, fragment: `call ${i} of client ${c}` })).ms);
          sample();
        }
      }),
    );
    const rssAfter = rssMbOf(child.pid!);
    await Promise.all(clients.map((c) => c.close()));
    return {
      searchP50: quantile(searches, 0.5),
      searchP99: quantile(searches, 0.99),
      mergeP50: quantile(merges, 0.5),
      mergeP99: quantile(merges, 0.99),
      rssBefore,
      rssAfter,
      rssPeaks,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    spawnSync('node', [bin, '--root', root, 'token', 'revoke', `bench-${process.pid}`], { env });
  }
}
