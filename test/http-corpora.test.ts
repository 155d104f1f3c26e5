import type { ResultPromise } from 'execa';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { BIN, zkProcess } from './helpers/corpus.js';
import { httpMcpClient, serveTwoCorpora, stoppedAfterEach } from './helpers/mcp.js';

// Several corpora behind one HTTP port (docs/http.md#corpora-by-name), and tokens scoped to some
// of them with read or read-write rights (docs/http.md#tokens): `serve --http` in a process of its
// own, the registry and the token store in folders of the test's own, the SDK's HTTP client.

const { running, clients } = stoppedAfterEach();

interface Setup {
  env: Record<string, string>;
  alpha: string;
  beta: string;
  /** The server's base URL: its own corpus at `${url}`, the others at `${url}/NAME`. */
  url: string;
  proc: ResultPromise;
}

/** Two corpora registered as alpha and beta, and `serve --http` started for alpha, with a runtime, config and state folder of the test's own. */
const twoCorpora = (): Promise<Setup> => serveTwoCorpora(running);

async function token(s: Setup, name: string, corpora: string[], readOnly = false): Promise<string> {
  const r = await zkProcess(['--json', 'token', 'create', name, ...corpora.flatMap((c) => ['--corpus', c]), ...(readOnly ? ['--read-only'] : [])], {
    env: s.env,
  });
  expect(r.code, r.stderr).toBe(0);
  return r.json.token;
}

async function connect(url: string, bearer: string): Promise<Client> {
  const client = await httpMcpClient(url, bearer);
  clients.push(client);
  return client;
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw POST, for the status and body a refusal comes with. */
async function post(url: string, bearer: string, body: object): Promise<{ status: number; text: string }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });
  return { status: r.status, text: await r.text() };
}

const notesOf = (root: string) =>
  fs
    .readdirSync(root)
    .filter((f) => f.endsWith('.md'))
    .sort();
const write = (client: Client, slug: string, body = 'a note') => client.callTool({ name: 'write', arguments: { slug, title: slug, body } }) as Promise<any>;

describe('corpora by name over HTTP', () => {
  it('each registered corpus is served at /mcp/NAME with its own notes; /mcp serves the corpus serve was started for; a token for one corpus gets 404 at the other, as for a name never registered, and writes nothing', async () => {
    const s = await twoCorpora();
    const forAlpha = await token(s, 'alpha-agent', ['alpha']);
    const forBeta = await token(s, 'beta-agent', ['beta']);
    const a = await connect(`${s.url}/alpha`, forAlpha);
    const b = await connect(`${s.url}/beta`, forBeta);
    expect((await write(a, 'otter')).structuredContent.ok).toBe(true);
    expect((await write(b, 'badger')).structuredContent.ok).toBe(true);
    expect(notesOf(s.alpha).map((f) => f.replace(/^\d+-/, ''))).toEqual(['otter.md']);
    expect(notesOf(s.beta).map((f) => f.replace(/^\d+-/, ''))).toEqual(['badger.md']);
    // beta's server is beta's as if started alone: a command naming beta is answered by it, and sees its note
    const served = await zkProcess(['--corpus', 'beta', '--json', 'list'], { env: { ...s.env, ZK_MEMORY_SERVER: 'on' } });
    expect([served.json.server, served.json.notes.map((n: any) => n.title)]).toEqual([true, ['badger']]);
    const viaRoot = await connect(s.url, forAlpha);
    expect(((await viaRoot.callTool({ name: 'list', arguments: {} })) as any).structuredContent.notes.map((n: any) => n.title)).toEqual(['otter']);

    // alpha's token at beta, at a name never registered: the same 404, before any tool runs
    const before = notesOf(s.beta);
    const refused = await post(`${s.url}/beta`, forAlpha, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'write', arguments: { slug: 'intruder', title: 'x', body: 'y' } },
    });
    const unknown = await post(`${s.url}/gamma`, forAlpha, INIT);
    expect(refused).toEqual({ status: 404, text: unknown.text });
    expect(unknown.status).toBe(404);
    expect(refused.text).not.toMatch(/beta|token/);
    await expect(connect(`${s.url}/beta`, forAlpha)).rejects.toThrow(/no corpus at this path/);
    expect(notesOf(s.beta)).toEqual(before);
    // beta's token at /mcp (alpha's): 404 too; a token no corpus knows: 401 wherever it goes
    expect((await post(s.url, forBeta, INIT)).status).toBe(404);
    expect((await post(`${s.url}/beta`, 'zkm_never-made', INIT)).status).toBe(401);
    expect((await post(`${s.url}/gamma`, 'zkm_never-made', INIT)).status).toBe(401);

    // a session opened at alpha is not one at beta, even with a token for both
    const both = await token(s, 'both', ['alpha', 'beta']);
    const init = await fetch(`${s.url}/alpha`, {
      method: 'POST',
      headers: { authorization: `Bearer ${both}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INIT),
    });
    const sid = init.headers.get('mcp-session-id')!;
    await init.text();
    const crossed = await fetch(`${s.url}/beta`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${both}`,
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-06-18',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    expect(crossed.status).toBe(404);
    await crossed.text();
  }, 180_000);

  it('a token made for two corpora opens both, with its rights in each; token list shows its scope; revoked, it is refused at both on the next request', async () => {
    const s = await twoCorpora();
    const bearer = await token(s, 'phone', ['alpha', 'beta'], true);
    const listed = await zkProcess(['--json', '--corpus', 'beta', 'token', 'list'], { env: s.env });
    expect(listed.json.tokens).toEqual([
      {
        name: 'phone',
        read_only: true,
        created: expect.any(String),
        corpora: [
          { name: 'alpha', root: fs.realpathSync(s.alpha) },
          { name: 'beta', root: fs.realpathSync(s.beta) },
        ],
      },
    ]);
    expect((await zkProcess(['token', 'list', '--all'], { env: s.env })).stdout).toMatch(/^phone {2}read-only {2}alpha, beta {2}created /);

    const a = await connect(`${s.url}/alpha`, bearer);
    const b = await connect(`${s.url}/beta`, bearer);
    for (const client of [a, b]) {
      expect(((await client.callTool({ name: 'overview', arguments: {} })) as any).structuredContent.ok).toBe(true);
      await expect(write(client, 'x')).rejects.toThrow(/read-only/);
    }
    expect([notesOf(s.alpha), notesOf(s.beta)]).toEqual([[], []]);

    const revoked = await zkProcess(['--json', '--corpus', 'alpha', 'token', 'revoke', 'phone'], { env: s.env });
    expect(revoked.json).toMatchObject({ ok: true, revoked: 'phone' });
    expect(revoked.json.corpora.map((c: any) => c.name).sort()).toEqual(['alpha', 'beta']);
    // the sessions already open are refused on their next request, at both corpora
    await expect(a.callTool({ name: 'overview', arguments: {} })).rejects.toThrow(/401|unauthorized/i);
    await expect(b.callTool({ name: 'overview', arguments: {} })).rejects.toThrow(/401|unauthorized/i);
    expect((await zkProcess(['--json', 'token', 'list', '--all'], { env: s.env })).json.tokens).toEqual([]);
  }, 180_000);

  it('the stdio MCP server takes --corpus NAME as it takes --root', async () => {
    const s = await twoCorpora();
    const stdio = new Client({ name: 'zk-memory-test', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: 'node',
        args: [BIN, 'mcp', '--corpus', 'beta'],
        env: { ...(process.env as Record<string, string>), ...s.env, ZK_MEMORY_SERVER: 'off' },
      }),
    );
    clients.push(stdio);
    expect((await write(stdio, 'heron')).structuredContent.ok).toBe(true);
    expect(notesOf(s.beta).map((f) => f.replace(/^\d+-/, ''))).toEqual(['heron.md']);
    expect(notesOf(s.alpha)).toEqual([]);
  }, 180_000);

  it('20 clients on two corpora at once: every answer comes from the corpus its client opened', async () => {
    const s = await twoCorpora();
    const corpora = { alpha: await token(s, 'alpha-agent', ['alpha']), beta: await token(s, 'beta-agent', ['beta']) };
    const names = ['alpha', 'beta'] as const;
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => connect(`${s.url}/${names[i % 2]}`, corpora[names[i % 2]])));
    // each client writes a note of its own, then searches and lists, all at once
    await Promise.all(
      all.map(async (client, i) => {
        const w = await write(client, `${names[i % 2]}-note-${i}`, `written by client ${i} into ${names[i % 2]}`);
        expect(w.structuredContent.ok).toBe(true);
      }),
    );
    await Promise.all(
      all.map(async (client, i) => {
        const mine = names[i % 2];
        for (let round = 0; round < 3; round++) {
          const listed = ((await client.callTool({ name: 'list', arguments: {} })) as any).structuredContent.notes.map((n: any) => n.title);
          expect(listed).toHaveLength(10);
          expect(listed.every((t: string) => t.startsWith(`${mine}-note-`))).toBe(true);
          const hits = ((await client.callTool({ name: 'search', arguments: { query: 'written by client' } })) as any).structuredContent.hits;
          expect(hits.length).toBeGreaterThan(0);
          expect(hits.every((h: any) => h.title.startsWith(`${mine}-note-`))).toBe(true);
        }
      }),
    );
    expect(notesOf(s.alpha)).toHaveLength(10);
    expect(notesOf(s.beta)).toHaveLength(10);
    expect(notesOf(s.alpha).every((f) => f.includes('alpha-note-'))).toBe(true);
    expect(notesOf(s.beta).every((f) => f.includes('beta-note-'))).toBe(true);
  }, 180_000);
});

/** The `_meta` a 2026-07-28 request carries in place of a session's handshake. */
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** A 2026-07-28 request, standing alone (no initialize, no session), as a raw fetch: the SDK's v1 client speaks only sessions. */
async function modern(
  url: string,
  bearer: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const r = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...name,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: MODERN_META } }),
  });
  const text = await r.text();
  const json = r.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('')
    : text;
  return { status: r.status, body: JSON.parse(json) };
}

describe('the 2026-07-28 protocol over HTTP', () => {
  it("a stateless client (no initialize, no session) and a session client work side by side, each with its token's name and rights; Mcp-Method and Mcp-Name must agree with the body", async () => {
    const s = await twoCorpora();
    const writer = await token(s, 'web-app', ['alpha']);
    const reader = await token(s, 'dashboard', ['alpha'], true);
    const session = await connect(`${s.url}/alpha`, writer);

    const listed = await modern(`${s.url}/alpha`, writer, 'tools/list');
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools.map((t: any) => t.name)).toEqual((await session.listTools()).tools.map((t) => t.name));
    const w = await modern(`${s.url}/alpha`, writer, 'tools/call', {
      name: 'write',
      arguments: { slug: 'otter', title: 'Otter', body: 'Otters hold hands.', source: 'someone-else' },
    });
    expect(w.body.result.structuredContent).toMatchObject({ ok: true, note: { author: 'web-app' } });
    expect((await write(session, 'badger')).structuredContent.ok).toBe(true);
    // each sees what the other wrote
    const seen = await modern(`${s.url}/alpha`, writer, 'tools/call', { name: 'list', arguments: {} });
    expect(seen.body.result.structuredContent.notes.map((n: any) => n.title).sort()).toEqual(['Otter', 'badger']);
    expect(((await session.callTool({ name: 'list', arguments: {} })) as any).structuredContent.notes.map((n: any) => n.title).sort()).toEqual([
      'Otter',
      'badger',
    ]);

    // headers that disagree with the body, or are missing, are refused before any tool runs
    const before = notesOf(s.alpha);
    const lying = await modern(
      `${s.url}/alpha`,
      writer,
      'tools/call',
      { name: 'write', arguments: { slug: 'sneaky', title: 'Sneaky', body: 'x' } },
      { 'mcp-name': 'search' },
    );
    expect([lying.status, lying.body.error.code]).toEqual([400, -32020]);
    const otherMethod = await modern(
      `${s.url}/alpha`,
      writer,
      'tools/call',
      { name: 'write', arguments: { slug: 'sneaky', title: 'Sneaky', body: 'x' } },
      { 'mcp-method': 'tools/list' },
    );
    expect(otherMethod.status).toBe(400);
    expect(notesOf(s.alpha)).toEqual(before);

    // a read-only token's write is refused; a token for alpha gets 404 at beta; a revoked token 401 on its next request
    const ro = await modern(`${s.url}/alpha`, reader, 'tools/call', { name: 'write', arguments: { slug: 'ro', title: 'Ro', body: 'x' } });
    expect(JSON.stringify(ro.body.error ?? ro.body.result)).toMatch(/read-only/);
    expect((await modern(`${s.url}/beta`, writer, 'tools/list')).status).toBe(404);
    expect(notesOf(s.alpha)).toEqual(before);
    expect(notesOf(s.beta)).toEqual([]);
    expect((await zkProcess(['--corpus', 'alpha', 'token', 'revoke', 'web-app'], { env: s.env })).code).toBe(0);
    expect((await modern(`${s.url}/alpha`, writer, 'tools/list')).status).toBe(401);
    await expect(session.callTool({ name: 'list', arguments: {} })).rejects.toThrow(/401|unauthorized/i);
  }, 180_000);

  it("what a session holds from call to call is held for the token: a stateless client's inbox_next shows it the same input again, and a session is given another", async () => {
    const s = await twoCorpora();
    for (const turn of ['Otters hold hands', 'Herons wait in the shallows'])
      expect((await zkProcess(['--corpus', 'alpha', 'retain', turn, 'noted'], { env: s.env })).code).toBe(3);
    const bearer = await token(s, 'web-app', ['alpha']);
    const next = async () => (await modern(`${s.url}/alpha`, bearer, 'tools/call', { name: 'inbox_next', arguments: {} })).body.result.structuredContent;
    const first = await next();
    expect(first).toMatchObject({ done: false, file: expect.any(String) });
    expect((await next()).file).toBe(first.file);
    const session = await connect(`${s.url}/alpha`, bearer);
    const other = ((await session.callTool({ name: 'inbox_next', arguments: {} })) as any).structuredContent;
    expect(other).toMatchObject({ done: false, file: expect.any(String) });
    expect(other.file).not.toBe(first.file);
  }, 180_000);
});
