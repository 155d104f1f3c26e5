import type http from 'node:http';
import { Command } from 'commander';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmbedServer, type EmbedServer } from '../bench/embed-server.js';
import { ZkError } from '../src/errors.js';
import { embedConfig, type EmbedConfig } from '../src/llm/config.js';
import { Settings } from '../src/settings.js';
import { addEmbedOptions } from '../src/cli/invocation.js';
import { flagOverrides } from '../src/command-line/setting-flags.js';
import { embeddingsUrl, openAiEmbedder } from '../src/llm/embed.js';
import { fuseScores } from '../src/search/hybrid.js';

/** Each text's vector says which text it was: its length and its first character code. */
const identity = (text: string) => [text.length, text.charCodeAt(0) || 0];

let server: EmbedServer;
let scripted: ((n: number) => { status: number; body: string } | undefined) | undefined;
let headers: http.IncomingHttpHeaders[] = [];
/** Requests seen by the current test. */
let count = 0;

beforeAll(async () => {
  server = await startEmbedServer(identity, {
    intercept: (_, h) => {
      headers.push(h);
      return scripted?.(++count);
    },
  });
});
afterAll(() => server.close());
beforeEach(() => {
  scripted = undefined;
  headers = [];
  count = 0;
  server.inputs.length = 0;
  server.requests.length = 0;
});

function config(over: Partial<EmbedConfig> = {}): EmbedConfig {
  return { base: server.url, model: 'm', timeoutMs: 2000, retries: 2, backoffMs: 5, maxRetryAfterMs: 50, batchSize: 64, maxChars: 2000, ...over };
}

async function failure(p: Promise<unknown>): Promise<ZkError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ZkError);
  return err as ZkError;
}

describe('the embeddings client', () => {
  it('finds /v1/embeddings under a base given with or without its version', () => {
    expect(embeddingsUrl('http://localhost:11434')).toBe('http://localhost:11434/v1/embeddings');
    expect(embeddingsUrl('https://example.org/api/v1/')).toBe('https://example.org/api/v1/embeddings');
    expect(embeddingsUrl('https://example.org/v1/embeddings')).toBe('https://example.org/v1/embeddings');
  });

  it('sends batches of the configured size, keeps input order, clips long texts, sends the key', async () => {
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff', 'g'.repeat(50)];
    const vectors = await openAiEmbedder(config({ batchSize: 3, maxChars: 10, key: 'sk-1' })).embed(texts);
    expect(server.requests).toEqual([
      { model: 'm', size: 3 },
      { model: 'm', size: 3 },
      { model: 'm', size: 1 },
    ]);
    expect(vectors).toEqual([
      [1, 97],
      [2, 98],
      [3, 99],
      [4, 100],
      [5, 101],
      [6, 102],
      [10, 103],
    ]);
    expect(headers.every((h) => h.authorization === 'Bearer sk-1')).toBe(true);
    await openAiEmbedder(config()).embed(['x']);
    expect(headers.at(-1)?.authorization).toBeUndefined();
  });

  it('orders the answer by its index fields', async () => {
    scripted = () => ({
      status: 200,
      body: JSON.stringify({
        data: [
          { index: 1, embedding: [2] },
          { index: 0, embedding: [1] },
        ],
      }),
    });
    expect(await openAiEmbedder(config()).embed(['a', 'b'])).toEqual([[1], [2]]);
  });

  it('retries a 503, and fails with llm_failed (exit 3) on an answer it cannot use', async () => {
    scripted = (n) => (n === 1 ? { status: 503, body: '{"error":"loading model"}' } : undefined);
    expect(await openAiEmbedder(config()).embed(['a'])).toEqual([[1, 97]]);
    expect(count).toBe(2);
    const cases: [string, RegExp][] = [
      ['{"data":[{"index":0,"embedding":[1]}]}', /asked for 2 embeddings, got 1$/],
      ['{"data":[{"embedding":[1]},{"embedding":["x"]}]}', /an embedding is not a list of numbers$/],
      ['{"data":[{"embedding":[1]},{"embedding":[1,2]}]}', /differ in dimension$/],
      ['<html>', /not JSON/],
    ];
    for (const [body, message] of cases) {
      scripted = () => ({ status: 200, body });
      const err = await failure(openAiEmbedder(config()).embed(['a', 'b']));
      expect(err.code).toBe('llm_failed');
      expect(err.exitCode).toBe(3);
      expect(err.message).toMatch(/^embedding endpoint failed: /);
      expect(err.message).toMatch(message);
    }
    count = 0;
    scripted = (n) => ({ status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: n === 1 ? [1] : [1, 2] }] }) });
    expect((await failure(openAiEmbedder(config({ batchSize: 1 })).embed(['a', 'b']))).message).toBe(
      'embedding endpoint failed: embeddings of one run differ in dimension',
    );
    scripted = () => ({ status: 500, body: 'boom' });
    const err = await failure(openAiEmbedder(config()).embed(['a'], { retries: 0 }));
    expect(err.message).toBe('embedding endpoint failed: HTTP 500: boom');
  });

  it('an endpoint refusing the key or the connection is llm_unreachable, after one request', async () => {
    scripted = () => ({ status: 401, body: 'no' });
    const refused = await failure(openAiEmbedder(config()).embed(['a']));
    expect([refused.code, refused.exitCode, refused.message]).toEqual([
      'llm_unreachable',
      3,
      `embedding endpoint ${server.url}/v1/embeddings unreachable: HTTP 401, the key was not accepted: no`,
    ]);
    expect(count).toBe(1);
    const closed = await failure(openAiEmbedder(config({ base: 'http://127.0.0.1:1' })).embed(['a']));
    expect([closed.code, closed.message]).toEqual([
      'llm_unreachable',
      'embedding endpoint http://127.0.0.1:1/v1/embeddings unreachable: connection refused (ECONNREFUSED)',
    ]);
  });
});

describe('embedding configuration', () => {
  const settings = (args: string[], env: Record<string, string> = {}) =>
    new Settings(env).with(flagOverrides(addEmbedOptions(new Command('x').exitOverride()).parse(args, { from: 'user' }).opts()));

  it('is configured only with base and model; flags win over the environment', () => {
    expect(embedConfig(new Settings({ ZK_MEMORY_EMBED_BASE: 'http://h' }))).toBeUndefined();
    const c = embedConfig(
      settings(['--embed-model', 'flag-model', '--embed-batch', '8', '--embed-timeout', '2'], {
        ZK_MEMORY_EMBED_BASE: 'http://env',
        ZK_MEMORY_EMBED_MODEL: 'env-model',
        ZK_MEMORY_EMBED_KEY: 'k',
        ZK_MEMORY_EMBED_MAX_CHARS: '500',
      }),
    );
    expect(c).toMatchObject({ base: 'http://env', model: 'flag-model', key: 'k', batchSize: 8, timeoutMs: 2000, maxChars: 500, retries: 3 });
    expect(embedConfig(new Settings({ ZK_MEMORY_EMBED_BASE: 'b', ZK_MEMORY_EMBED_MODEL: 'm' }))).toMatchObject({
      batchSize: 64,
      maxChars: 2000,
      timeoutMs: 60_000,
    });
  });

  it('refuses malformed numbers as usage errors', () => {
    const env = { ZK_MEMORY_EMBED_BASE: 'b', ZK_MEMORY_EMBED_MODEL: 'm' };
    expect(() => embedConfig(settings(['--embed-batch', '0'], env))).toThrow(/--embed-batch takes a whole number > 0/);
    expect(() => embedConfig(settings(['--embed-timeout', 'soon'], env))).toThrow(/--embed-timeout/);
  });
});

describe('score fusion', () => {
  it('adds 0.3 × the normalised similarity to the full-text score relative to the best', () => {
    const fused = fuseScores(
      [
        { name: 'a', score: 8 },
        { name: 'b', score: 4 },
      ],
      [
        { name: 'c', score: 0.9 },
        { name: 'a', score: 0.7 },
        { name: 'd', score: 0.5 },
      ],
    );
    expect(fused.map((r) => r.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(fused[0].score).toBeCloseTo(1 + 0.3 * 0.5);
    expect(fused[1].score).toBeCloseTo(0.5);
    expect(fused[2].score).toBeCloseTo(0.3);
    expect(fused[3].score).toBeCloseTo(0);
  });
});
