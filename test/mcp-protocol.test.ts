import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, mdFiles, tempCorpus } from './helpers/corpus.js';

// The MCP server driven over raw stdio, as an agent's client would, including what a misbehaving
// client sends: every answer must be JSON-RPC on stdout, and the server must keep serving.

let root: string;
let server: ResultPromise;
let lines: string[] = [];
let waiting: ((line: string) => void)[] = [];

function send(message: unknown): void {
  server.stdin!.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
}

function nextLine(): Promise<string> {
  const line = lines.shift();
  return line !== undefined ? Promise.resolve(line) : new Promise((resolve) => waiting.push(resolve));
}

async function answer(): Promise<any> {
  return JSON.parse(await nextLine());
}

let id = 0;
async function request(method: string, params: unknown = {}): Promise<any> {
  send({ jsonrpc: '2.0', id: ++id, method, params });
  return answer();
}

const call = async (name: string, args: Record<string, unknown>) => (await request('tools/call', { name, arguments: args })).result;

beforeAll(async () => {
  root = tempCorpus();
  server = execa('node', [BIN, 'mcp', '--root', root], {
    env: { ZK_MEMORY_BACKEND: 'rg', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '' },
    reject: false,
    buffer: false,
  });
  let rest = '';
  server.stdout!.setEncoding('utf8');
  server.stdout!.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) {
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const init = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  expect(init.result.instructions).toMatch(/one thought per note/);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
});

afterAll(async () => {
  server.stdin!.end();
  await server;
});

describe('MCP server: arguments are data, never options', () => {
  it('stores a body that looks like a flag literally, and supersedes nothing', async () => {
    const other = await call('write', { slug: 'other', title: 'Other note', body: 'Stays current.' });
    const uuid = other.structuredContent.note.uuid;
    const w = await call('write', { slug: 'flaglike', title: 'Flag-like body', body: `--supersedes=${uuid}` });
    expect(w.structuredContent).toMatchObject({ ok: true, action: 'created' });
    const read = await call('read', { ref: w.structuredContent.note.path });
    expect(read.structuredContent.note.body).toContain(`--supersedes=${uuid}`);
    const again = await call('read', { ref: uuid });
    expect(again.structuredContent.note.superseded_by).toBeNull();
  });

  it('merges fragments that start with a dash, a rule or a minus sign', async () => {
    for (const fragment of ['- a list item', '---', '-5 degrees at night']) {
      const r = await call('merge', { ref: 'other', fragment });
      expect(r.isError, fragment).toBe(false);
      expect((await call('read', { ref: 'other' })).structuredContent.note.raw).toContain(`:* ${fragment}\n`);
    }
  });

  it('answers a search for --help and a ref -h with JSON-RPC only', async () => {
    const s = await call('search', { query: '--help' });
    expect(s.structuredContent).toMatchObject({ ok: true, query: '--help' });
    const r = await call('read', { ref: '-h' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error.code).toBe('not_found');
    // Had help text reached stdout, it would sit in the queue as a line that is not JSON.
    expect(lines).toEqual([]);
  });
});

describe('MCP server: a misbehaving client gets an answer and the server keeps serving', () => {
  it('answers a line that is not JSON with a parse error', async () => {
    send('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(await answer()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/parse error/) } });
  });

  it('answers a batch and a request without a method with an invalid-request error', async () => {
    send([{ jsonrpc: '2.0', id: 90, method: 'tools/list' }]);
    expect((await answer()).error.code).toBe(-32600);
    send({ jsonrpc: '2.0', id: 91 });
    expect(await answer()).toMatchObject({ id: 91, error: { code: -32600 } });
  });

  it('answers a 16 MB message with an error, then serves the next call', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 77,
      method: 'tools/call',
      params: { name: 'write', arguments: { slug: 'huge', title: 'Huge', body: 'x'.repeat(16 * 1024 * 1024) } },
    });
    send(huge);
    expect(await answer()).toMatchObject({ jsonrpc: '2.0', id: 77, error: { code: -32600, message: expect.stringMatching(/too large/) } });
    expect(mdFiles(root).some((f) => f.endsWith('-huge.md'))).toBe(false);
    const list = await call('list', {});
    expect(list.structuredContent.notes.length).toBeGreaterThan(0);
  });
});
