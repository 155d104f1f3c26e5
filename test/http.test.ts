import { execa, type ResultPromise } from 'execa';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, tempCorpus, tempDir, zk, zkProcess } from './helpers/corpus.js';
import { until } from './helpers/wait.js';
import { tokenStoreFile } from '../src/api/token-store.js';

// MCP over HTTP (docs/http.md), as a user runs it: `zk-memory serve --http` in its own process on
// 127.0.0.1, tokens made with `zk-memory token`, the SDK's own HTTP client, and raw requests for
// what a hostile client would send. Every server a test starts is stopped when it ends.

const running: ResultPromise[] = [];

afterEach(async () => {
  for (const p of running.splice(0)) {
    p.kill('SIGKILL');
    await p.catch(() => undefined);
  }
});

interface Served {
  root: string;
  env: Record<string, string>;
  url: string;
  proc: ResultPromise;
}

/** A runtime folder of its own, so the test's servers never meet another's. */
function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  const runtime = tempDir('zk-rt-');
  fs.chmodSync(runtime, 0o700);
  return { XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: 'fts', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '', ...extra };
}

/** `serve --http 127.0.0.1:0 ARGS` for `root` (ARGS may name another --http), once it says where it listens. */
async function serveHttp(root: string, env: Record<string, string>, args: string[] = []): Promise<Served> {
  const proc = execa('node', [BIN, 'serve', '--root', root, '--http', '127.0.0.1:0', ...args], { env: { ...process.env, ...env }, reject: false });
  running.push(proc);
  return listening(proc, root, env);
}

/** `proc`, a server of `root`, once it says where it listens. */
async function listening(proc: ResultPromise, root: string, env: Record<string, string>): Promise<Served> {
  let stderr = '';
  proc.stderr!.on('data', (c) => (stderr += String(c)));
  let exited: string | undefined;
  void proc.then((r) => (exited = `the server exited ${r.exitCode}: ${stderr}`));
  await until(
    'the server listens',
    () => /MCP over HTTP at (\S+)/.test(stderr),
    30_000,
    () => exited,
  );
  return { root, env, url: /MCP over HTTP at (\S+)/.exec(stderr)![1], proc };
}

/** The bearer of the token an older version kept in the shared server's corpus (`sharedServer`). */
const LEGACY_BEARER = 'zkm_made-here-by-an-older-version-000000000000000000000';

let shared: Promise<Served> | undefined;

/**
 * One server for the tests that need a server with --http running and look only at their own
 * tokens, sessions and notes (`notesOf` before and after): started by the first of them, stopped
 * when the file is done. Its corpus holds, when it starts, the token file an older version kept
 * there, for the start to take over; it admits a browser app's Origin and a reverse proxy's name.
 */
function sharedServer(): Promise<Served> {
  shared ??= (async () => {
    const root = tempCorpus();
    const sha256 = (await import('node:crypto')).createHash('sha256').update(LEGACY_BEARER).digest('hex');
    fs.writeFileSync(
      path.join(root, '.zk', 'tokens.json'),
      JSON.stringify([{ name: 'old-laptop', read_only: false, created: '2026-12-01T00:00:00.000Z', sha256 }]),
      { mode: 0o600 },
    );
    const env = serverEnv();
    const proc = execa(
      'node',
      [BIN, 'serve', '--root', root, '--http', '127.0.0.1:0', '--allow-origin', 'https://app.example', '--allow-host', 'memory.example.net'],
      { env: { ...process.env, ...env }, reject: false },
    );
    return listening(proc, root, env);
  })();
  return shared;
}

afterAll(async () => {
  const served = await shared?.catch(() => undefined);
  shared = undefined;
  served?.proc.kill('SIGKILL');
  await served?.proc.catch(() => undefined);
});

/** The notes of `root` not among `before`. */
const notesSince = (root: string, before: string[]) => notesOf(root).filter((f) => !before.includes(f));

/** A token made with `token create` (in this process: the making is not what most tests check). */
async function token(root: string, name: string, readOnly = false): Promise<string> {
  const r = await zk(['--root', root, '--json', 'token', 'create', name, ...(readOnly ? ['--read-only'] : [])]);
  expect(r.code).toBe(0);
  return r.json.token;
}

async function httpClient(url: string, bearer: string): Promise<Client> {
  const client = new Client({ name: 'zk-memory-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } }));
  return client;
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw POST to the server (node:http, which lets a test send any Host), with the headers MCP clients send unless told otherwise. */
function post(
  url: string,
  body: string | object,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += String(c)));
        res.on('end', () => {
          let json: any;
          try {
            // An answer comes as an event stream of one message; a refusal as a JSON body.
            const sse = String(res.headers['content-type']).startsWith('text/event-stream');
            json = JSON.parse(
              sse
                ? text
                    .split('\n')
                    .filter((l) => l.startsWith('data: '))
                    .map((l) => l.slice(6))
                    .join('')
                : text,
            );
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, json, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** The note files of a corpus. */
const notesOf = (root: string) =>
  fs
    .readdirSync(root)
    .filter((f) => f.endsWith('.md'))
    .sort();

describe('MCP over HTTP', () => {
  it("an SDK client with a token gets the stdio tools; what it writes carries the token's name, whatever source it passes", async () => {
    const root = tempCorpus();
    const env = serverEnv();
    const bearer = await token(root, 'laptop');
    const served = await serveHttp(root, env);
    const status = await zk(['serve', '--status', '--json', '--root', root], { env });
    expect(status.json).toMatchObject({ running: true, http: served.url });
    const client = await httpClient(served.url, bearer);
    const stdio = new Client({ name: 'zk-memory-test', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: 'node',
        args: [BIN, 'mcp', '--root', root],
        env: { ...(process.env as Record<string, string>), ...env, ZK_MEMORY_SERVER: 'off' },
      }),
    );
    try {
      expect((await client.listTools()).tools).toEqual((await stdio.listTools()).tools);
      const w = (await client.callTool({
        name: 'write',
        arguments: { slug: 'otter', title: 'Otter', body: 'Otters hold hands.', source: 'someone-else' },
      })) as any;
      expect(w.structuredContent.ok).toBe(true);
      const m = (await client.callTool({ name: 'merge', arguments: { ref: 'otter', fragment: 'They sleep afloat.', source: 'someone-else' } })) as any;
      expect(m.structuredContent.ok).toBe(true);
      const file = path.join(root, w.structuredContent.note.path);
      const text = fs.readFileSync(file, 'utf8');
      expect(text).toMatch(/^author: laptop$/m);
      expect(text).toMatch(/\(laptop\):\*/);
      expect(text).not.toContain('someone-else');
      const traced = fs
        .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(traced.filter((t) => t.event === 'write' || t.event === 'merge').map((t) => t.source)).toEqual(['laptop', 'laptop']);
      const s = (await client.callTool({ name: 'search', arguments: { query: 'otters afloat' } })) as any;
      expect(s.structuredContent.hits.map((h: any) => h.title)).toEqual(['Otter']);
      // the same search over stdio answers the same
      const viaStdio = (await stdio.callTool({ name: 'search', arguments: { query: 'otters afloat' } })) as any;
      expect(viaStdio.structuredContent.hits).toEqual(s.structuredContent.hits);
    } finally {
      await client.close();
      await stdio.close();
    }
  });

  // token management is a command like any other: in this process (a server reads what it keeps)
  it('token create shows a token once and keeps only its hash, in a 0600 file outside the corpus; list and revoke manage them; bad names and taken ones are refused', async () => {
    const root = tempCorpus();
    const made = await zk(['--root', root, '--json', 'token', 'create', 'ci-runner', '--read-only']);
    expect(made.json).toMatchObject({ ok: true, name: 'ci-runner', read_only: true, token: expect.stringMatching(/^zkm_[A-Za-z0-9_-]{43}$/) });
    const text = await zk(['--root', root, 'token', 'create', 'laptop']);
    expect(text.stdout.split('\n')[0]).toMatch(/^zkm_[A-Za-z0-9_-]{43}$/);
    const file = tokenStoreFile(root);
    expect(path.relative(root, file).startsWith('..')).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const kept = fs.readFileSync(file, 'utf8');
    expect(kept).not.toContain(made.json.token);
    expect(kept).not.toContain(text.stdout.split('\n')[0]);
    expect((await zk(['--root', root, '--json', 'token', 'list'])).json.tokens.map((t: any) => [t.name, t.read_only])).toEqual([
      ['ci-runner', true],
      ['laptop', false],
    ]);
    const taken = await zk(['--root', root, '--json', 'token', 'create', 'laptop']);
    expect([taken.code, taken.json.error.code]).toEqual([1, 'exists']);
    const bad = await zk(['--root', root, '--json', 'token', 'create', 'a b']);
    expect([bad.code, bad.json.error.code]).toEqual([2, 'usage']);
    expect((await zk(['--root', root, '--json', 'token', 'revoke', 'laptop'])).json).toEqual({
      ok: true,
      revoked: 'laptop',
      corpora: [{ name: null, root: fs.realpathSync(root) }],
    });
    const gone = await zk(['--root', root, '--json', 'token', 'revoke', 'laptop']);
    expect([gone.code, gone.json.error.code]).toEqual([1, 'not_found']);
    expect((await zk(['--root', root, '--json', 'token', 'list'])).json.tokens.map((t: any) => t.name)).toEqual(['ci-runner']);
  });

  it('a port in use is exit 4, and the corpus is left free for the next server', async () => {
    const root = tempCorpus();
    const env = serverEnv();
    const port = new URL((await sharedServer()).url).port;
    const clash = await zkProcess(['--json', 'serve', '--root', root, '--http', `127.0.0.1:${port}`], { env });
    expect(clash.code).toBe(4);
    expect(clash.json.error.message).toMatch(/the port is in use/);
    expect((await zk(['serve', '--status', '--json', '--root', root], { env })).json.running).toBe(false);
  });

  it('a read-only token sees only the tools that read, and a write it attempts is a JSON-RPC error that writes nothing', async () => {
    const served = await sharedServer();
    const root = served.root;
    const reader = await token(root, 'dashboard', true);
    const before = notesOf(root);
    const client = await httpClient(served.url, reader);
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.length).toBeGreaterThan(3);
      expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
      expect(tools.map((t) => t.name)).toContain('search');
      expect(tools.map((t) => t.name)).not.toContain('write');
      await expect(client.callTool({ name: 'write', arguments: { slug: 'x', title: 'X', body: 'y' } })).rejects.toThrow(/read-only, and write writes/);
      await expect(client.callTool({ name: 'merge', arguments: { ref: 'x', fragment: 'y' } })).rejects.toThrow(/read-only/);
      expect(notesOf(root)).toEqual(before);
      expect(((await client.callTool({ name: 'overview', arguments: {} })) as any).structuredContent.ok).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("refuses before any tool runs: no token, a wrong or revoked one, another token's session, a foreign Host or Origin; too large or broken bodies get 413 and -32700", async () => {
    const served = await sharedServer(); // it admits the Origin https://app.example
    const root = served.root;
    const bearer = await token(root, 'laptop');
    const other = await token(root, 'phone');
    const before = notesOf(root);
    const auth = { authorization: `Bearer ${bearer}` };
    const write = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'write', arguments: { slug: `n${id}`, title: `N ${id}`, body: 'b' } },
    });

    const none = await post(served.url, INIT);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    // an idle connection is kept past a client's pause: the client closes it first
    expect(none.headers['keep-alive']).toBe('timeout=65');
    expect((await post(served.url, INIT, { authorization: 'Bearer zkm_not-a-token' })).status).toBe(401);
    expect((await post(served.url, INIT, { authorization: bearer })).status).toBe(401); // not a bearer header

    // a session of our own, then the hostile variants of a write into it
    const init = await post(served.url, INIT, auth);
    expect(init.status).toBe(200);
    const sid = String(init.headers['mcp-session-id']);
    const session = { ...auth, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    expect((await post(served.url, write(2), { ...session, authorization: `Bearer ${other}` })).status).toBe(403);
    expect((await post(served.url, write(3), { ...session, host: 'evil.example:80' })).status).toBe(403);
    expect((await post(served.url, write(4), { ...session, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(served.url, write(5), { ...session, origin: 'null' })).status).toBe(403);
    const big = await post(served.url, { ...write(6), pad: 'x'.repeat(4 * 1024 * 1024) }, session);
    expect(big.status).toBe(413);
    const broken = await post(served.url, '{"jsonrpc": "2.0", "id": 7, "method"', session);
    expect(broken.status).toBe(400);
    expect(broken.json.error.code).toBe(-32700);
    expect(notesOf(root)).toEqual(before);

    // an allowed Origin passes, and the session works
    const ok = await post(served.url, write(8), { ...session, origin: 'https://app.example' });
    expect(ok.status).toBe(200);
    // An event stream that ends with its answer: the SDK's JSON answers are kept for the session's life.
    expect(ok.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(ok.json.result.structuredContent.ok).toBe(true);
    expect(notesSince(root, before)).toEqual([expect.stringMatching(/-n8\.md$/)]);

    // revoking takes effect on the open session at once
    expect((await zk(['--root', root, 'token', 'revoke', 'laptop'])).code).toBe(0);
    expect((await post(served.url, write(9), session)).status).toBe(401);
    expect(notesSince(root, before)).toHaveLength(1);
  });

  it('a session is bound to the token it began with: a read-only token re-made under a revoked name cannot write through the old session', async () => {
    const served = await sharedServer();
    const root = served.root;
    const writer = await token(root, 'tablet');
    const before = notesOf(root);
    const write = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'write', arguments: { slug: `n${id}`, title: `N ${id}`, body: 'b' } },
    });
    const init = await post(served.url, INIT, { authorization: `Bearer ${writer}` });
    expect(init.status).toBe(200);
    const session = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
    expect((await post(served.url, write(2), { ...session, authorization: `Bearer ${writer}` })).json.result.structuredContent.ok).toBe(true);
    expect(notesSince(root, before)).toHaveLength(1);

    expect((await zk(['--root', root, 'token', 'revoke', 'tablet'])).code).toBe(0);
    const reader = await token(root, 'tablet', true);
    const refused = await post(served.url, write(3), { ...session, authorization: `Bearer ${reader}` });
    expect(refused.status).toBe(403);
    expect(refused.json.error.message).toMatch(/another token/);
    expect(notesSince(root, before)).toHaveLength(1);
    // the read-only token opens a session of its own, which reads and does not write
    const own = await post(served.url, INIT, { authorization: `Bearer ${reader}` });
    const mine = { 'mcp-session-id': String(own.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${reader}` };
    expect((await post(served.url, write(4), mine)).json.error.message).toMatch(/read-only/);
    expect(notesSince(root, before)).toHaveLength(1);
  });

  it('ingest_start over HTTP reads only under the folders --ingest-from allows, never out through a symlink; text passed with the call is read anywhere', async () => {
    const root = tempCorpus();
    const bearer = await token(root, 'laptop');
    const allowed = tempDir('zk-allowed-');
    const outside = tempDir('zk-outside-');
    fs.writeFileSync(path.join(outside, 'secret.md'), '# Secret\n\nThe host key is hunter2.\n');
    fs.writeFileSync(path.join(allowed, 'paper.md'), '# Paper\n\nOtters hold hands while they sleep.\n');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(allowed, 'link.md'));
    fs.mkdirSync(path.join(allowed, 'linked'));
    fs.symlinkSync(outside, path.join(allowed, 'linked', 'out'));
    const served = await serveHttp(root, serverEnv(), ['--ingest-from', allowed]);
    const client = await httpClient(served.url, bearer);
    const start = async (args: Record<string, unknown>) => ((await client.callTool({ name: 'ingest_start', arguments: args })) as any).structuredContent;
    try {
      for (const from of [path.join(outside, 'secret.md'), outside, path.join(allowed, '..', path.basename(outside), 'secret.md'), '/etc/passwd']) {
        const r = await start({ from });
        expect(r.ok, from).toBe(false);
        expect(r.error.message).toMatch(/reads only under the folders this server allows .* is elsewhere$/);
      }
      for (const from of [path.join(allowed, 'link.md'), 'link.md', path.join(allowed, 'linked', 'out', 'secret.md')]) {
        const r = await start({ from });
        expect(r.ok, from).toBe(false);
        expect(r.error.message).toMatch(/leads elsewhere through a symlink$/);
      }
      // the allowed folder itself: its own document is read, the symlink out of it is not
      const job = await start({ from: allowed, name: 'papers' });
      expect(job.ok).toBe(true);
      expect(job.documents.map((d: any) => d.path)).toEqual(['paper.md']);
      expect(job.unsupported.map((u: any) => u.path).sort()).toEqual(['link.md', 'linked/out']);
      let text = '';
      for (;;) {
        const next = ((await client.callTool({ name: 'ingest_next', arguments: { job: 'papers' } })) as any).structuredContent;
        if (next.done) break;
        text += JSON.stringify(next);
        await client.callTool({ name: 'ingest_skip', arguments: { job: 'papers' } });
      }
      expect(text).toContain('Otters hold hands');
      expect(text).not.toContain('hunter2');
      // one file, relative to the allowed folder
      expect((await start({ from: 'paper.md', name: 'one' })).ok).toBe(true);
      // a document passed as text
      const given = await start({ text: '# Minutes\n\nBeavers build dams.\n', name: 'minutes.md' });
      expect(given.ok).toBe(true);
      expect(given.job).toBe('minutes');
      expect(given.documents.map((d: any) => d.path)).toEqual(['minutes.md']);
      expect((await start({ text: 'x'.repeat(1024 * 1024 + 1), name: 'big.md' })).error.message).toMatch(/at most 1048576 are taken/);
    } finally {
      await client.close();
    }
    // a server that allows no folder reads none, and says what it takes instead
    const bare = await sharedServer();
    const other = await httpClient(bare.url, await token(bare.root, 'ingester'));
    try {
      const r = ((await other.callTool({ name: 'ingest_start', arguments: { from: path.join(allowed, 'paper.md') } })) as any).structuredContent;
      expect(r.error.message).toMatch(/allowed no folder with serve --ingest-from DIR\): pass the document itself as text, with a name$/);
    } finally {
      await other.close();
    }
  });

  it('a server started with --http takes over the tokens an older version kept in the corpus on this host', async () => {
    // the shared server's corpus held such a file when it started
    const served = await sharedServer();
    const root = served.root;
    expect(fs.existsSync(path.join(root, '.zk', 'tokens.json'))).toBe(false);
    const client = await httpClient(served.url, LEGACY_BEARER);
    const r: any = await client.callTool({ name: 'write', arguments: { slug: 'kept', title: 'Kept', body: 'Written with an old token.' } });
    expect(r.isError).toBeFalsy();
    await client.close();
    expect(fs.readdirSync(root).filter((f) => f.endsWith('-kept.md'))).toHaveLength(1);
  });

  it('a damaged token file refuses every request with a reason that names nothing of the host; the server keeps running', async () => {
    const served = await sharedServer();
    const root = served.root;
    const bearer = await token(root, 'desk');
    const file = tokenStoreFile(root);
    const kept = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, '{ not json');
    try {
      const refused = await post(served.url, INIT, { authorization: `Bearer ${bearer}` });
      expect(refused.status).toBe(500);
      expect(JSON.stringify(refused.json)).not.toContain(root);
    } finally {
      fs.writeFileSync(file, kept);
    }
    expect((await post(served.url, INIT, { authorization: `Bearer ${bearer}` })).status).toBe(200);
  });

  it('a client stalled in its headers or half-way through its body is cut off, and others are served meanwhile', async () => {
    const root = tempCorpus();
    const bearer = await token(root, 'laptop');
    const served = await serveHttp(root, serverEnv({ ZK_MEMORY_HTTP_REQUEST_SECONDS: '2' }));
    const { port } = new URL(served.url);
    const stall = (text: string) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(text));
      let answer = '';
      socket.on('data', (d) => (answer += String(d)));
      const closed = new Promise<{ at: number; answer: string }>((resolve) => socket.on('close', () => resolve({ at: performance.now(), answer })));
      socket.on('error', () => undefined);
      return closed;
    };
    const began = performance.now();
    const inHeaders = stall(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthor`);
    const inBody = stall(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${bearer}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 5000\r\n\r\n{"jsonrpc":`,
    );
    const client = await httpClient(served.url, bearer);
    try {
      expect(((await client.callTool({ name: 'overview', arguments: {} })) as any).structuredContent.ok).toBe(true);
      const [a, b] = await Promise.all([inHeaders, inBody]);
      // cut off near the 2 s limit (Node checks every half second), well before anything else would end them
      expect(Math.max(a.at, b.at) - began).toBeLessThan(10_000);
      for (const cut of [a, b]) expect(cut.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(((await client.callTool({ name: 'search', arguments: { query: 'anything' } })) as any).structuredContent.ok).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('a client stalled in its headers is cut off by the headers timeout, though the request timeout is far off', async () => {
    const root = tempCorpus();
    const served = await serveHttp(root, serverEnv({ ZK_MEMORY_HTTP_HEADERS_SECONDS: '1', ZK_MEMORY_HTTP_REQUEST_SECONDS: '600' }));
    const { port } = new URL(served.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthor`));
      let text = '';
      socket.on('data', (d) => (text += String(d)));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('connections are capped per address and in all: more are closed as they come, the held ones are served, and a local search is answered meanwhile', async () => {
    const root = tempCorpus();
    fs.writeFileSync(path.join(root, '20260101-otter.md'), '---\nuuid: 11111111-1111-4111-8111-111111111111\ntitle: Otter\n---\nOtters hold hands.\n');
    // far-off timeouts: only the caps close anything here
    const env = serverEnv({
      ZK_MEMORY_HTTP_MAX_CONNECTIONS: '6',
      ZK_MEMORY_HTTP_MAX_CONNECTIONS_PER_ADDRESS: '4',
      ZK_MEMORY_HTTP_HEADERS_SECONDS: '600',
      ZK_MEMORY_HTTP_REQUEST_SECONDS: '600',
    });
    const served = await serveHttp(root, env);
    const port = Number(new URL(served.url).port);
    const sockets: { socket: net.Socket; closed: boolean }[] = [];
    const connect = (from: string) =>
      new Promise<{ socket: net.Socket; closed: boolean }>((resolve) => {
        const held = { socket: net.connect({ port, host: '127.0.0.1', localAddress: from }), closed: false };
        held.socket.on('error', () => undefined);
        held.socket.on('close', () => (held.closed = true));
        held.socket.once('connect', () => resolve(held));
        sockets.push(held);
      });
    const closedFrom = (list: { closed: boolean }[]) => list.filter((h) => h.closed).length;
    try {
      const first: { socket: net.Socket; closed: boolean }[] = [];
      for (let i = 0; i < 6; i++) first.push(await connect('127.0.0.1'));
      await until('two over the per-address cap are closed', () => closedFrom(first) === 2, 20_000);
      expect(first.slice(0, 4).every((h) => !h.closed)).toBe(true);
      const second: { socket: net.Socket; closed: boolean }[] = [];
      for (let i = 0; i < 4; i++) second.push(await connect('127.0.0.2'));
      await until('two over the cap on all are closed', () => closedFrom(second) === 2, 20_000);
      const third = await connect('127.0.0.3');
      await until('a new address is refused while the server is full', () => third.closed, 20_000);

      // a local command is answered meanwhile
      const search = await zkProcess(['--root', root, 'search', 'otters', '--json'], { env: { ...env, ZK_MEMORY_SERVER: 'auto' } });
      expect(search.code).toBe(0);
      expect(search.json.hits.map((h: any) => h.title)).toEqual(['Otter']);

      // a held connection is served
      const kept = first[0].socket;
      const reply = new Promise<string>((resolve) => kept.once('data', (d) => resolve(String(d))));
      kept.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 2\r\n\r\n{}`);
      expect(await reply).toMatch(/^HTTP\/1\.1 401 /);
    } finally {
      for (const h of sockets) h.socket.destroy();
    }
    // once they are gone, clients are served again
    const bearer = await token(root, 'laptop');
    const client = await httpClient(served.url, bearer);
    try {
      expect(((await client.callTool({ name: 'search', arguments: { query: 'otters' } })) as any).structuredContent.hits).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('a server out of files (held connections past its file limit) never makes a local search worse: the command answers in-process', async () => {
    const root = tempCorpus();
    fs.writeFileSync(path.join(root, '20260101-otter.md'), '---\nuuid: 11111111-1111-4111-8111-111111111111\ntitle: Otter\n---\nOtters hold hands.\n');
    const LIMIT = 256;
    // caps above the file limit, as on a host whose limit is lower than they assume; rg spawns a process for each search
    const env = serverEnv({
      ZK_MEMORY_BACKEND: 'rg',
      ZK_MEMORY_HTTP_MAX_CONNECTIONS: '10000',
      ZK_MEMORY_HTTP_MAX_CONNECTIONS_PER_ADDRESS: '10000',
      ZK_MEMORY_HTTP_HEADERS_SECONDS: '600',
      ZK_MEMORY_HTTP_REQUEST_SECONDS: '600',
    });
    const proc = execa('sh', ['-c', `ulimit -n ${LIMIT} && exec node "$0" serve --root "$1" --http 127.0.0.1:0`, BIN, root], {
      env: { ...process.env, ...env },
      reject: false,
    });
    running.push(proc);
    let stderr = '';
    proc.stderr!.on('data', (c) => (stderr += String(c)));
    await until(
      'the server listens',
      () => /MCP over HTTP at (\S+)/.test(stderr),
      30_000,
      () => (proc.exitCode !== null ? stderr : undefined),
    );
    const port = Number(new URL(/MCP over HTTP at (\S+)/.exec(stderr)![1]).port);
    const files = () => fs.readdirSync(`/proc/${proc.pid}/fd`).length;
    const held: net.Socket[] = [];
    try {
      const connect = () =>
        new Promise<void>((resolve) => {
          const s = net.connect(port, '127.0.0.1');
          s.on('error', () => resolve());
          s.once('connect', () => resolve());
          s.once('close', () => resolve());
          held.push(s);
        });
      for (let i = 0; i < LIMIT + 40 && files() < LIMIT; i++) await connect();
      await until('the server holds every file it may', () => files() >= LIMIT, 20_000);
      // three files free: enough to take the command's connection, not to search (rg's pipes)
      for (let k = 0; k < 3; k++) held.find((s) => !s.destroyed && !s.closed)!.destroy();
      await until('the server let three go', () => files() === LIMIT - 3, 20_000);
      const search = await zkProcess(['--root', root, '--json', 'search', 'otters'], { env: { ...env, ZK_MEMORY_SERVER: 'auto' } });
      expect(search.code, search.stdout + search.stderr).toBe(0);
      expect(search.json.hits.map((h: any) => h.title)).toEqual(['Otter']);
    } finally {
      for (const s of held) s.destroy();
    }
  });

  it('a host that is not loopback needs --allow-remote; a bad address is a usage error', async () => {
    const root = tempCorpus();
    const env = serverEnv();
    // refused before anything is served: in this process (a server that did start would hold the test up)
    const remote = await zk(['serve', '--root', root, '--http', '0.0.0.0:0'], { env });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/^error: 0\.0\.0\.0 is not a loopback address: add --allow-remote/);
    const bad = await zk(['--json', 'serve', '--root', root, '--http', 'localhost:99999'], { env });
    expect(bad.code).toBe(2);
    expect(bad.json.error.message).toMatch(/--http takes \[HOST:\]PORT/);
    expect((await zk(['serve', '--root', root, '--allow-remote'], { env })).code).toBe(2);
    expect((await zk(['serve', '--root', root, '--ingest-from', root], { env })).stderr).toMatch(
      /^error: .*--ingest-from, --oauth, --public-url and --tls-\* go with --http/,
    );
    const notFolder = await zk(['serve', '--root', root, '--http', '127.0.0.1:0', '--ingest-from', path.join(root, 'none')], { env });
    expect(notFolder.code).toBe(2);
    expect(notFolder.stderr).toMatch(/^error: --ingest-from takes a folder, and .*none is none/);
    const allowed = await serveHttp(root, env, ['--http', '0.0.0.0:0', '--allow-remote']);
    expect(allowed.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    const port = new URL(allowed.url).port;
    // reached by a name of this host it answers (and asks for a token); by a foreign name it refuses
    expect((await post(`http://127.0.0.1:${port}/mcp`, INIT)).status).toBe(401);
    expect((await post(`http://127.0.0.1:${port}/mcp`, INIT, { host: 'rebound.example' })).status).toBe(403);
  });

  it("--allow-host admits a reverse proxy's public name, bare or with the port; other names stay refused", async () => {
    const served = await sharedServer(); // it admits memory.example.net
    const { port } = new URL(served.url);
    expect((await post(served.url, INIT, { host: 'memory.example.net' })).status).toBe(401);
    expect((await post(served.url, INIT, { host: `memory.example.net:${port}` })).status).toBe(401);
    expect((await post(served.url, INIT, { host: `localhost:${port}` })).status).toBe(401);
    expect((await post(served.url, INIT, { host: 'other.example.net' })).status).toBe(403);
    expect((await post(served.url, INIT, { host: `localhost:${Number(port) + 1}` })).status).toBe(403);
  });

  it('serves HTTPS with --tls-cert and --tls-key', async () => {
    const root = tempCorpus();
    const dir = tempDir('zk-tls-');
    const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
    await execa('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]);
    const bearer = await token(root, 'laptop');
    const served = await serveHttp(root, serverEnv(), ['--tls-cert', cert, '--tls-key', key]);
    expect(served.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const request = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = https.request(
          served.url,
          {
            method: 'POST',
            ca: fs.readFileSync(cert),
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(INIT));
      });
    expect(await request({})).toBe(401);
    expect(await request({ authorization: `Bearer ${bearer}` })).toBe(200);
  });

  it('20 clients making mixed calls while a CLI writes too: every acknowledged write is on disk once, every search finds what was acknowledged before it', async () => {
    const root = tempCorpus();
    const bearer = await token(root, 'fleet');
    const served = await serveHttp(root, serverEnv());
    // The command line writes from this process: another process than the server's, racing it for the lock.
    const cliWriter = (async () => {
      for (let i = 0; i < 10; i++)
        expect((await zk(['--root', root, 'write', `cli-${i}`, `Cli ${i}`, `cliword${i} from the shell`], { env: { ZK_MEMORY_SERVER: 'off' } })).code).toBe(0);
    })();
    // what the load proves is 20 clients at once: 2 rounds each make 100 acknowledged writes, merges and successors
    const CLIENTS = 20;
    const ROUNDS = 2;
    const acked: { path: string; fragments: string[] }[] = [];
    const worker = async (c: number) => {
      const client = await httpClient(served.url, bearer);
      const call = async (name: string, args: object) => {
        const r = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as any;
        expect(r.structuredContent, `${name} ${JSON.stringify(args)}`).toMatchObject({ ok: true });
        return r.structuredContent;
      };
      try {
        for (let i = 0; i < ROUNDS; i++) {
          const word = `zq${c}x${i}`;
          const w = await call('write', { slug: `c${c}-n${i}`, title: `Client ${c} note ${i}`, body: `The word ${word} lives here.` });
          const fragment = `merged ${word}m`;
          await call('merge', { ref: w.note.path, fragment });
          acked.push({ path: w.note.path, fragments: [fragment] });
          const found = await call('search', { query: `${word}m` });
          expect(found.hits.map((h: any) => h.path)).toContain(w.note.path);
          expect((await call('read', { ref: w.note.path })).note.body).toContain(fragment);
          if (i === ROUNDS - 1) {
            const next = await call('write', {
              slug: `c${c}-s${i}`,
              title: `Client ${c} successor ${i}`,
              body: `Replaces it: ${word}s.`,
              supersedes: w.note.path,
            });
            acked.push({ path: next.note.path, fragments: [] });
          }
        }
      } finally {
        await client.close();
      }
    };
    await Promise.all([cliWriter, ...Array.from({ length: CLIENTS }, (_, c) => worker(c))]);
    const files = notesOf(root);
    expect(files).toHaveLength(CLIENTS * ROUNDS + CLIENTS + 10);
    for (const a of acked) {
      const text = fs.readFileSync(path.join(root, a.path), 'utf8');
      for (const f of a.fragments) expect(text.split(f).length - 1, `${a.path}: ${f}`).toBe(1);
    }
    expect((await zk(['--root', root, 'tend', 'check'], { env: { ZK_MEMORY_SERVER: 'off' } })).code).toBe(0);
  }, 240_000);

  it('a server stopped with SIGTERM under load loses no acknowledged write; clients get a clean error and succeed on retry against the next server', async () => {
    const root = tempCorpus();
    const bearer = await token(root, 'fleet');
    const env = serverEnv();
    const first = await serveHttp(root, env);
    const acked = new Set<string>();
    const failed: string[] = [];
    let stop = false;
    const worker = async (c: number) => {
      const client = await httpClient(first.url, bearer);
      for (let i = 0; !stop && i < 200; i++) {
        const slug = `w${c}-${i}`;
        try {
          const r = (await client.callTool({ name: 'write', arguments: { slug, title: `W ${c} ${i}`, body: 'text' } })) as any;
          if (r.structuredContent?.ok) acked.add(r.structuredContent.note.path);
        } catch (err) {
          expect((err as Error).message).not.toMatch(/at .*\.js:\d+/); // a clean error, no stack
          failed.push(slug);
          break;
        }
      }
      await client.close().catch(() => undefined);
    };
    const load = Promise.all(Array.from({ length: 5 }, (_, c) => worker(c)));
    await until('some writes are acknowledged', () => acked.size >= 10, 60_000);
    process.kill(first.proc.pid!, 'SIGTERM'); // the signal alone (execa's kill would follow it with SIGKILL after 5 s)
    const ended = await first.proc;
    stop = true;
    await load;
    expect(ended.exitCode, `${ended.signal} ${ended.stderr}`).toBe(0);
    expect(failed.length).toBeGreaterThan(0);
    for (const p of acked) expect(fs.existsSync(path.join(root, p)), p).toBe(true);
    const second = await serveHttp(root, env);
    const client = await httpClient(second.url, bearer);
    try {
      for (const slug of failed) {
        const r = (await client.callTool({ name: 'write', arguments: { slug, title: `again ${slug}`, body: 'text', unique: true } })) as any;
        expect(r.structuredContent.ok).toBe(true);
      }
    } finally {
      await client.close();
    }
    for (const p of acked) expect(fs.existsSync(path.join(root, p)), p).toBe(true);
  }, 120_000);
});
