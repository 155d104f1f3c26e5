import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCorpus } from './generate.js';
import { callContext } from '../src/compose.js';
import { processIo, withContext } from '../src/context.js';
import { Settings } from '../src/settings.js';

/** The repository the benches run from (they are compiled to dist/bench/). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The value after `--name` on the command line, else `fallback`. */
export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

// What the benches share: a generated corpus kept between runs, and an MCP server driven over raw
// stdio, timing each call as a client sees it.

/** A corpus of `size` generated notes under the temp folder, made once and kept for later runs (`links`: see generateCorpus). */
export function benchCorpus(name: string, size: number, links = false): string {
  const root = path.join(os.tmpdir(), `${name}-${size}`);
  const marker = path.join(root, '.zk', 'generated');
  if (!fs.existsSync(marker)) {
    fs.rmSync(root, { recursive: true, force: true });
    process.stderr.write(`generating ${size} notes in ${root}\n`);
    generateCorpus(root, size, 42, links);
    fs.writeFileSync(marker, String(size));
  }
  return root;
}

export interface McpSession {
  /** One search call: its latency in ms and its hits. */
  search(query: string): Promise<{ ms: number; hits: { path: string }[] }>;
  /** One call of another tool, failing when the tool does; its structured answer. */
  call(tool: string, args: Record<string, unknown>): Promise<unknown>;
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
  const call = async (tool: string, args: Record<string, unknown>) => {
    const r = await request('tools/call', { name: tool, arguments: args });
    if (r.error || r.result?.structuredContent?.ok === false) throw new Error(`MCP ${tool} failed: ${JSON.stringify(r).slice(0, 300)}`);
    return r.result.structuredContent as unknown;
  };
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    async search(query) {
      const t0 = process.hrtime.bigint();
      const answer = (await call('search', { query, limit: 8 })) as { hits: { path: string }[] };
      return { ms: Number(process.hrtime.bigint() - t0) / 1e6, hits: answer.hits };
    },
    call,
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

/** The resident memory of process `pid` now, in MB (VmRSS from /proc), or null where it cannot be told. */
export function rssMbOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 102.4) / 10 : null;
  } catch {
    return null;
  }
}

/**
 * One call to a resident server over its socket, as the command line makes it (src/server/protocol.ts):
 * the request on one line, then `accepted`, `alive` while it works, and `done` with the call's output.
 */
export function serverCall(sock: string, request: object): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(sock);
    let rest = '';
    let settled = false;
    const settle = (err: Error | null, out?: { code: number; stdout: string; stderr: string }) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (err) reject(err);
      else resolve(out!);
    };
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('error', (err) => settle(new Error(`server call failed: ${err.message}`)));
    socket.on('close', () => settle(new Error('the server closed the connection before its answer')));
    socket.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        let reply: { refused?: string; done?: boolean; code: number; stdout: string; stderr: string };
        try {
          reply = JSON.parse(line);
        } catch {
          return settle(new Error(`the server answered something else than its protocol: ${line.slice(0, 200)}`));
        }
        if (reply.refused) return settle(new Error(`the server refused the call: ${reply.refused}`));
        if (reply.done) return settle(null, { code: reply.code, stdout: reply.stdout, stderr: reply.stderr });
      }
    });
  });
}

/**
 * The zk-memory servers (`serve` on their command line) whose environment puts their sockets under
 * `runtimeDir` (XDG_RUNTIME_DIR): a bench's own, told apart from any other server on the host.
 */
export function serversUnder(runtimeDir: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!args.includes('serve') || !args.some((a) => a.endsWith('zk-memory.js') || a.endsWith('zk-memory'))) continue;
      const xdg = fs
        .readFileSync(`/proc/${entry}/environ`, 'utf8')
        .split('\0')
        .find((v) => v.startsWith('XDG_RUNTIME_DIR='));
      const dir = xdg?.slice('XDG_RUNTIME_DIR='.length);
      if (dir && (dir === runtimeDir || dir.startsWith(`${runtimeDir}${path.sep}`))) pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** Library code a bench program calls runs in a call of its own, with the process's settings, as every program's does. */
export const inCall = <T>(fn: () => T): T => withContext(callContext({ settings: new Settings(process.env), io: processIo }), fn);
