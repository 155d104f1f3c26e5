import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatCompletionsLlm, chatCompletionsUrl } from '../src/llm/openai.js';
import type { LlmConfig } from '../src/llm/config.js';
import type { ChatMessage } from '../src/llm/types.js';

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (to provoke a timeout). */
  hang?: boolean;
  /** Drop the connection without an answer. */
  reset?: boolean;
}

/** A tiny OpenAI-compatible server whose answers each test scripts. */
let server: http.Server;
let base: string;
let seen: Seen[] = [];
/** Connections the server accepted in the current test, requests or not. */
let connections = 0;
let script: (req: Seen, n: number) => Reply;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const s: Seen = { url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : undefined };
      seen.push(s);
      const r = script(s, seen.length);
      if (r.hang) return;
      if (r.reset) return void req.socket.destroy();
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...(r.headers ?? {}) });
      res.end(typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? {}));
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  seen = [];
  connections = 0;
});

function config(over: Partial<LlmConfig> = {}): LlmConfig {
  return { base, model: 'test-model', timeoutMs: 2000, maxTokens: 8192, retries: 3, backoffMs: 5, maxRetryAfterMs: 50, ...over };
}

const toolAnswer = (args: unknown) => ({
  choices: [
    {
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'record_x', arguments: typeof args === 'string' ? args : JSON.stringify(args) } }],
      },
    },
  ],
});
const contentAnswer = (content: string) => ({ choices: [{ finish_reason: 'stop', message: { role: 'assistant', content } }] });

const messages: ChatMessage[] = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'hello' },
];
const schema = { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] };

/** Call the adapter and also collect why it failed, if it did. */
async function ask(cfg: LlmConfig) {
  const llm = chatCompletionsLlm(cfg);
  let reason: string | undefined;
  let kind: string | undefined;
  const answer = await llm(messages, { schema, name: 'record_x', description: 'record x', onFailure: (r, k) => ((reason = r), (kind = k)) });
  return { answer, reason, kind, llm };
}

describe('chat-completions adapter', () => {
  it('forces a function call with the schema as parameters, at temperature 0', async () => {
    script = () => ({ body: toolAnswer({ x: 1 }) });
    const { answer, llm } = await ask(config());
    expect(answer).toEqual({ x: 1 });
    expect(llm.model).toBe('test-model');
    const body = seen[0].body;
    expect(seen[0].url).toBe('/v1/chat/completions');
    expect(body).toMatchObject({ model: 'test-model', temperature: 0, max_tokens: 8192, messages });
    expect(body.tools[0].function).toEqual({ name: 'record_x', description: 'record x', parameters: schema });
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'record_x' } });
  });

  it('falls back to JSON mode when the server rejects tools, and remembers it', async () => {
    script = (req) =>
      req.body.tools
        ? { status: 400, body: { error: { message: 'tools are not supported by this model' } } }
        : { body: contentAnswer('```json\n{"x": 2}\n```') };
    const { answer, llm } = await ask(config());
    expect(answer).toEqual({ x: 2 });
    expect(seen).toHaveLength(2);
    const json = seen[1].body;
    expect(json.tools).toBeUndefined();
    expect(json.response_format).toEqual({ type: 'json_object' });
    expect(json.messages[0].role).toBe('system');
    expect(json.messages[0].content).toContain('be brief');
    expect(json.messages[0].content).toContain(JSON.stringify(schema));
    await llm(messages, { schema, name: 'record_x' });
    expect(seen).toHaveLength(3);
    expect(seen[2].body.tools).toBeUndefined();
  });

  it('falls back to JSON mode when the answer carries no tool call', async () => {
    script = (req) => ({ body: contentAnswer(req.body.tools ? 'Sure! Here you go.' : 'Here: {"x": 3} done') });
    const { answer } = await ask(config());
    expect(answer).toEqual({ x: 3 });
    expect(seen.map((s) => Boolean(s.body.tools))).toEqual([true, false]);
  });

  it('retries a 429, honouring Retry-After', async () => {
    script = (_req, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '0' }, body: { error: 'slow down' } } : { body: toolAnswer({ x: 4 }) });
    const { answer } = await ask(config());
    expect(answer).toEqual({ x: 4 });
    expect(seen).toHaveLength(2);
  });

  it('caps a long Retry-After', async () => {
    script = (_req, n) => (n === 1 ? { status: 503, headers: { 'retry-after': '3600' }, body: 'busy' } : { body: toolAnswer({ x: 7 }) });
    const waits: number[] = [];
    expect((await ask(config({ sleep: async (ms) => void waits.push(ms) }))).answer).toEqual({ x: 7 });
    // One wait, of the cap (maxRetryAfterMs), not the hour asked for.
    expect(waits).toEqual([50]);
  });

  it('waits longer before each retry, and not at all after the last attempt', async () => {
    script = () => ({ status: 500, body: { error: 'boom' } });
    const waits: number[] = [];
    await ask(config({ retries: 3, backoffMs: 10, maxRetryAfterMs: 1000, sleep: async (ms) => void waits.push(ms) }));
    expect(seen).toHaveLength(4);
    expect(waits).toHaveLength(3);
    // Exponential, with up to one backoff of jitter: 10-20, 20-30, 40-50 ms.
    waits.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(10 * 2 ** i);
      expect(ms).toBeLessThanOrEqual(10 * 2 ** i + 10);
    });
  });

  it('takes a 500 that refuses tools as a refusal, not a hiccup', async () => {
    script = (req) =>
      req.body.tools ? { status: 500, body: { error: { message: 'tools param requires --jinja flag' } } } : { body: contentAnswer('{"x": 8}') };
    expect((await ask(config())).answer).toEqual({ x: 8 });
    expect(seen.map((s) => Boolean(s.body.tools))).toEqual([true, false]);
  });

  it('gives up after repeated 500s with a reason, never throwing', async () => {
    script = () => ({ status: 500, body: { error: 'boom' } });
    const { answer, reason } = await ask(config({ retries: 2 }));
    expect(answer).toBeNull();
    expect(seen).toHaveLength(3);
    expect(reason).toMatch(/HTTP 500 after 3 attempts/);
  });

  it('takes a 401 or a 403 as an unreachable endpoint: one request, the endpoint and the answer named', async () => {
    for (const [status, cause] of [
      [401, 'the key was not accepted'],
      [403, 'access denied'],
    ] as const) {
      seen = [];
      script = () => ({ status, body: { error: 'bad key' } });
      expect(await ask(config())).toMatchObject({
        answer: null,
        kind: 'unreachable',
        reason: `LLM endpoint ${base}/v1/chat/completions unreachable: HTTP ${status}, ${cause}: {"error":"bad key"}`,
      });
      expect(seen).toHaveLength(1);
    }
  });

  it('takes a refused connection, an unknown host or a failed TLS handshake as unreachable, never retried; a reset is retried', async () => {
    // Nothing listens on port 1.
    expect(await ask(config({ base: 'http://127.0.0.1:1' }))).toMatchObject({
      answer: null,
      kind: 'unreachable',
      reason: 'LLM endpoint http://127.0.0.1:1/v1/chat/completions unreachable: connection refused (ECONNREFUSED)',
    });
    // The .invalid domain never resolves.
    expect(await ask(config({ base: 'http://zk-memory-test.invalid' }))).toMatchObject({
      answer: null,
      kind: 'unreachable',
      reason: expect.stringMatching(
        /^LLM endpoint http:\/\/zk-memory-test\.invalid\/v1\/chat\/completions unreachable: host not found \((ENOTFOUND|EAI_AGAIN)\)$/,
      ),
    });
    // TLS spoken to this plain-HTTP server fails its handshake, once: the server sees one connection.
    expect(await ask(config({ base: base.replace('http:', 'https:') }))).toMatchObject({
      answer: null,
      kind: 'unreachable',
      reason: expect.stringMatching(/ unreachable: TLS failed \(\w+\)$/),
    });
    expect(connections).toBe(1);
    // A connection reset is a hiccup, not a dead endpoint: it is retried.
    script = (_req, n) => (n === 1 ? { reset: true } : { body: toolAnswer({ x: 1 }) });
    expect((await ask(config())).answer).toEqual({ x: 1 });
    expect(seen).toHaveLength(2);
  });

  it('times out to null, and does not ask again', async () => {
    script = () => ({ hang: true });
    const { answer, reason } = await ask(config({ timeoutMs: 150 }));
    expect(answer).toBeNull();
    expect(reason).toMatch(/timed out after 0.15 s/);
    expect(seen).toHaveLength(1);
  });

  it('turns garbage content into null with a reason', async () => {
    script = (req) => ({ body: req.body.tools ? toolAnswer('not json at all') : contentAnswer('no') });
    expect((await ask(config())).answer).toBeNull();
    script = (req) => (req.body.tools ? { status: 400, body: 'tool_choice unsupported' } : { body: contentAnswer('I cannot help with that.') });
    const r = await ask(config());
    expect(r.answer).toBeNull();
    expect(r.reason).toMatch(/not a JSON object/);
    script = () => ({ body: '<html>oops</html>' });
    expect((await ask(config())).reason).toMatch(/not JSON/);
  });

  it('tells a model answer that is not JSON from a transport failure', async () => {
    script = () => ({ body: toolAnswer('this is {not json') });
    expect(await ask(config())).toMatchObject({ answer: null, kind: 'unparseable', reason: expect.stringMatching(/not a JSON object/) });
    expect(seen).toHaveLength(1);
    script = (req) => ({ body: req.body.tools ? contentAnswer('') : contentAnswer('sure! here it is: {x: five') });
    expect(await ask(config())).toMatchObject({ answer: null, kind: 'unparseable' });
    script = () => ({ body: '<html>oops</html>' });
    expect((await ask(config())).kind).toBe('transport');
    script = () => ({ status: 400, body: { error: { code: 'context_length_exceeded', message: 'too long' } } });
    expect((await ask(config())).kind).toBe('transport');
    expect((await ask(config({ base: 'http://127.0.0.1:1', retries: 0 }))).kind).toBe('unreachable');
  });

  it('accepts a base with or without /v1', async () => {
    script = () => ({ body: toolAnswer({ x: 5 }) });
    await ask(config({ base: `${base}/v1/` }));
    await ask(config({ base }));
    expect(seen.map((s) => s.url)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    expect(chatCompletionsUrl('https://example.org/api/v1')).toBe('https://example.org/api/v1/chat/completions');
    expect(chatCompletionsUrl('http://localhost:11434')).toBe('http://localhost:11434/v1/chat/completions');
  });

  it('sends Authorization only when a key is given', async () => {
    script = () => ({ body: toolAnswer({ x: 6 }) });
    await ask(config());
    await ask(config({ key: 'sk-test' }));
    expect(seen[0].headers.authorization).toBeUndefined();
    expect(seen[1].headers.authorization).toBe('Bearer sk-test');
  });

  it('honours a configured max_tokens and names a cut-off answer', async () => {
    script = () => ({ body: { choices: [{ finish_reason: 'length', message: { tool_calls: [{ function: { name: 'record_x', arguments: '{"x": ' } }] } }] } });
    const { answer, reason } = await ask(config({ maxTokens: 64 }));
    expect(answer).toBeNull();
    expect(seen[0].body.max_tokens).toBe(64);
    expect(reason).toMatch(/max_tokens 64/);
  });
});
