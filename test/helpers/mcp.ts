import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import { BIN, tempCorpus, tempDir, zkProcess } from './corpus.js';
import { execa, type ResultPromise } from 'execa';
import { afterEach, expect } from 'vitest';
import { until } from './wait.js';

/** A tool call's answer as the tests read it. */
export type Call = (name: string, args?: Record<string, unknown>) => Promise<any>;

/**
 * A real MCP client of `zk-memory mcp` on `root` over stdio (backend rg, no LLM; `env` added to
 * the server's environment), kept in `clients` so the test file closes it.
 */
export async function mcpClient(clients: Client[], root: string, env: Record<string, string> = {}): Promise<Call> {
  const transport = new StdioClientTransport({
    command: 'node',
    args: [BIN, 'mcp', '--root', root],
    env: { ...(process.env as Record<string, string>), ZK_MEMORY_BACKEND: 'rg', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'zk-memory-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return async (name, args = {}) => (await client.callTool({ name, arguments: args })) as any;
}

/** A real MCP client over HTTP (the SDK's streamable HTTP transport) at `url`, sending `bearer`. */
export async function httpMcpClient(url: string, bearer: string): Promise<Client> {
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'zk-memory-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
  return client;
}

/**
 * The servers and clients a test file starts, closed and killed after each of its tests: the file
 * pushes what it starts onto `running` and `clients`.
 */
export function stoppedAfterEach(): { running: ResultPromise[]; clients: Client[] } {
  const running: ResultPromise[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    for (const p of running.splice(0)) {
      p.kill('SIGKILL');
      await p.catch(() => undefined);
    }
  });
  return { running, clients };
}

/** Two corpora registered as alpha and beta in folders of the test's own, and `serve --corpus alpha --http` started with `args`. */
export async function serveTwoCorpora(running: ResultPromise[], o: { env?: Record<string, string>; args?: string[] } = {}) {
  const runtime = tempDir('zk-rt-');
  fs.chmodSync(runtime, 0o700);
  const env = {
    XDG_RUNTIME_DIR: runtime,
    XDG_CONFIG_HOME: tempDir('zk-config-'),
    XDG_STATE_HOME: tempDir('zk-state-'),
    ZK_MEMORY_BACKEND: 'fts',
    ZK_MEMORY_LLM_BASE: '',
    ZK_MEMORY_LLM_MODEL: '',
    ...o.env,
  };
  const alpha = tempCorpus();
  const beta = tempCorpus();
  expect((await zkProcess(['corpus', 'add', 'alpha', alpha], { env })).code).toBe(0);
  expect((await zkProcess(['corpus', 'add', 'beta', beta], { env })).code).toBe(0);
  const proc = execa('node', [BIN, 'serve', '--corpus', 'alpha', '--http', '127.0.0.1:0', ...(o.args ?? [])], {
    env: { ...process.env, ...env },
    reject: false,
  });
  running.push(proc);
  let stderr = '';
  proc.stderr!.on('data', (c) => (stderr += String(c)));
  let exited: string | undefined;
  void proc.then((r) => (exited = `the server exited ${r.exitCode}: ${stderr}`));
  await until(
    'the server serves beta',
    () => /serving corpus beta .* at (\S+)\n/.test(stderr),
    60_000,
    () => exited,
  );
  return { env, alpha, beta, url: /MCP over HTTP at (\S+)\n/.exec(stderr)![1], proc };
}
