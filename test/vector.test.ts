import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashedBagOfWords, startEmbedServer, type EmbedServer } from '../bench/embed-server.js';
import { openTable } from '../src/search/lance.js';
import { readVectorState } from '../src/search/vector.js';
import { relevanceFloor } from '../src/search/vector-floor.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, tempCorpus, write, zk } from './helpers/corpus.js';

/**
 * The test's embedding model: a text that speaks of the partner's birthday (in any words the
 * pattern knows) points along axis 0; every other word is noise hashed into the remaining axes.
 * `other-model` answers in 32 dimensions instead of 64.
 */
const PARTNER_BIRTHDAY = /\b(partner|sam|turns|forty|40)\b/gi;
function testVector(text: string, model: string): number[] {
  const dims = model === 'other-model' ? 32 : 64;
  const concept = (text.match(PARTNER_BIRTHDAY) ?? []).length;
  return [concept * 10, ...hashedBagOfWords(text.replace(PARTNER_BIRTHDAY, ' '), dims - 1)];
}

const QUERY = "my partner's birthday";

function note(dir: string, name: string, title: string, body: string, extra = ''): void {
  write(dir, name, `---\nuuid: ${crypto.randomUUID()}\ntitle: ${title}\ndate: 2026-11-01\n${extra}---\n\n# ${title}\n\n${body}\n`);
}

/** Ten notes: one paraphrases the query without sharing a word, one shares a word without the meaning. */
function corpus(): string {
  const root = tempCorpus();
  note(root, 'sam.md', 'Sam', 'Sam turns 40 on June 18; dinner at the harbour.');
  note(root, 'cake.md', 'Cake recipe', 'A birthday cake: flour, eggs, butter and an oven at 180 degrees.');
  const topics = [
    'rollback of the billing service',
    'tomatoes in the garden',
    'the kayak club',
    'the office move',
    'the yearly budget',
    'the piano teacher',
    'a hotel in Lisbon',
    'the plumber on Monday',
  ];
  topics.forEach((t, i) => note(root, `misc-${i}.md`, `Misc ${i}`, `Notes about ${t}.`));
  return root;
}
const NOTES = 10;

let server: EmbedServer;
beforeAll(async () => {
  server = await startEmbedServer(testVector);
});
afterAll(() => server.close());
beforeEach(() => {
  server.inputs.length = 0;
  server.requests.length = 0;
});

const embedEnv = (model = 'test-model', base = server.url) => ({ ZK_MEMORY_EMBED_BASE: base, ZK_MEMORY_EMBED_MODEL: model });
const noEmbedEnv = { ZK_MEMORY_EMBED_BASE: '', ZK_MEMORY_EMBED_MODEL: '', ZK_MEMORY_EMBED: 'off' };
const search = (root: string, args: string[], env: Record<string, string> = embedEnv()) => zk(['--root', root, '--json', 'search', QUERY, ...args], { env });
const paths = (r: { json: any }) => r.json.hits.map((h: any) => h.path);
/** What the server was asked to embed besides the query, then clears its log. */
function embeddedNotes(): string[] {
  const notes = server.inputs.filter((t) => t !== QUERY);
  server.inputs.length = 0;
  return notes;
}

describe('vector search', () => {
  it('embeds every note once, then only the query, then only the note that changed; deleted notes leave', async () => {
    const root = corpus();
    const first = await search(root, ['--backend', 'vector']);
    expect(first.code).toBe(0);
    expect(first.json.backend).toBe('vector');
    expect(first.json.hits[0]).toMatchObject({ path: 'sam.md', title: 'Sam', slug: 'sam', superseded_by: null });
    expect(first.json.hits[0].snippet).toContain('Sam turns 40 on June 18');
    expect(server.inputs.filter((t) => t === QUERY)).toHaveLength(1);
    const once = embeddedNotes();
    expect(once).toHaveLength(NOTES);
    expect(new Set(once.map((t) => t.split('\n')[0])).size).toBe(NOTES);
    expect(once.find((t) => t.startsWith('Sam\n'))).toBe('Sam\n\nSam turns 40 on June 18; dinner at the harbour.');

    await search(root, ['--backend', 'vector']);
    expect(server.inputs).toEqual([QUERY]);
    embeddedNotes();

    expect((await zk(['--root', root, 'merge', 'misc-3', 'We moved to the fourth floor.'])).code).toBe(0);
    fs.utimesSync(path.join(root, 'misc-4.md'), new Date(), new Date(Date.now() + 5000)); // touched, not changed
    await search(root, ['--backend', 'vector']);
    const changed = embeddedNotes();
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatch(/^Misc 3\n[\s\S]*fourth floor/);

    fs.rmSync(path.join(root, 'sam.md'));
    const gone = await search(root, ['--backend', 'vector']);
    expect(paths(gone)).not.toContain('sam.md');
    expect(embeddedNotes()).toEqual([]);
    const status = await zk(['--root', root, '--json', 'index', 'status'], { env: embedEnv() });
    expect(status.json.index.vectors).toMatchObject({ model: 'test-model', dimension: 64, notes: NOTES - 1, pending: 0 });
  });

  it('leaves superseded notes out unless --history', async () => {
    const root = corpus();
    note(root, 'sam-old.md', 'Sam old', 'Sam turns forty, we thought in May.', 'superseded_by: 11111111-2222-3333-4444-555555555555\n');
    const now = await search(root, ['--backend', 'vector']);
    expect(paths(now)).not.toContain('sam-old.md');
    const all = await search(root, ['--backend', 'vector', '--history']);
    expect(paths(all).slice(0, 2).sort()).toEqual(['sam-old.md', 'sam.md']);
    expect(all.json.hits.find((h: any) => h.path === 'sam-old.md').superseded_by).toBe('11111111-2222-3333-4444-555555555555');
  });
});

describe('hybrid search', () => {
  it('ranks the paraphrase and the lexical match both at the top, where full-text finds only one', async () => {
    const root = corpus();
    const fts = await search(root, ['--backend', 'fts']);
    expect(paths(fts)).toEqual(['cake.md']);
    const hybrid = await search(root, ['--backend', 'hybrid']);
    expect(hybrid.code).toBe(0);
    expect(hybrid.json.backend).toBe('hybrid');
    expect(paths(hybrid).slice(0, 2).sort()).toEqual(['cake.md', 'sam.md']);
    expect(hybrid.json.hits.find((h: any) => h.path === 'cake.md').snippet).toContain('birthday cake');
    const auto = await search(root, []);
    expect(auto.json).toMatchObject({ ok: true, backend: 'hybrid' });
    expect(auto.json.fallback).toBeUndefined();
    expect(paths(auto).slice(0, 2).sort()).toEqual(['cake.md', 'sam.md']);
  });
});

describe('snippets of vector and hybrid hits', () => {
  it("show a merged fragment's text without its separator or date line", async () => {
    const root = corpus();
    await zk(['--root', root, 'merge', 'sam', 'The birthday dinner moved to the lighthouse.', '--source', 'probe-agent']);
    for (const backend of ['vector', 'hybrid']) {
      const r = await search(root, ['--backend', backend]);
      const sam = r.json.hits.find((h: any) => h.path === 'sam.md');
      expect(sam.snippet, backend).toBe('Sam turns 40 on June 18; dinner at the harbour. The birthday dinner moved to the lighthouse.');
    }
  });
});

describe('a damaged vector table', () => {
  it('is started over when corrupt or when its pin is gone', async () => {
    const root = corpus();
    expect((await search(root, ['--backend', 'vector'])).code).toBe(0);
    embeddedNotes();
    const walk = (d: string): string[] =>
      fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    for (const f of walk(path.join(root, '.zk', 'index', 'vectors.lance'))) fs.writeFileSync(f, 'garbage');
    fs.writeFileSync(path.join(root, 'misc-0.md'), '# Misc 0\n\nChanged, so the table must take a write.\n');
    const corrupt = await search(root, ['--backend', 'vector']);
    expect(corrupt.json.hits[0].path).toBe('sam.md');
    // The changed note, embedded before the table refused the write; then every note anew.
    expect(embeddedNotes()).toHaveLength(1 + NOTES);
    fs.rmSync(path.join(root, '.zk', 'index', 'vectors.json'));
    expect((await search(root, ['--backend', 'vector'])).json.hits[0].path).toBe('sam.md');
    expect(embeddedNotes()).toHaveLength(NOTES);
  });
});

describe('the pinned embedding model', () => {
  it('refuses another model until index --rebuild re-embeds with it', async () => {
    const root = corpus();
    expect((await search(root, ['--backend', 'vector'])).code).toBe(0);
    server.requests.length = 0;

    const other = await search(root, ['--backend', 'vector'], embedEnv('other-model'));
    expect(other.code).toBe(1);
    expect(other.json.ok).toBe(false);
    expect(other.json.error.code).toBe('refused');
    expect(other.json.error.message).toBe(
      'the vector index holds embeddings of model "test-model", not "other-model": run `zk-memory index --rebuild` to re-embed with the new model',
    );
    const auto = await search(root, [], embedEnv('other-model'));
    expect(auto.code).toBe(0);
    expect(auto.json.backend).toBe('fts');
    expect(auto.json.fallback).toMatch(/^vector search failed: the vector index holds embeddings of model "test-model"/);
    expect(server.requests).toEqual([]);

    const rebuilt = await zk(['--root', root, '--json', 'index', '--rebuild', '--embed-model', 'other-model'], { env: embedEnv() });
    expect(rebuilt.json).toMatchObject({
      ok: true,
      action: 'rebuilt',
      notes: NOTES,
      vectors: { model: 'other-model', dimension: 32, rebuilt: true, embedded: NOTES },
    });
    expect(server.requests.every((r) => r.model === 'other-model')).toBe(true);
    const status = await zk(['--root', root, '--json', 'index', 'status']);
    expect(status.json.index.vectors).toMatchObject({ model: 'other-model', dimension: 32, notes: NOTES, pending: 0 });
    const now = await search(root, ['--backend', 'vector', '--embed-model', 'other-model']);
    expect(now.json.hits[0].path).toBe('sam.md');
    expect((await search(root, ['--backend', 'vector'])).code).toBe(1);
  });
});

describe('a warm MCP server with vectors', () => {
  it('answers vector searches from the vector state it keeps, and sees another process re-embed with another model', async () => {
    const root = corpus();
    const transport = new StdioClientTransport({
      command: 'node',
      args: [BIN, 'mcp', '--root', root],
      env: { ...(process.env as Record<string, string>), ...embedEnv(), ZK_MEMORY_BACKEND: 'vector', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'zk-memory-vector-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const ask = async () => ((await client.callTool({ name: 'search', arguments: { query: QUERY } })) as any).structuredContent;
      for (let i = 0; i < 3; i++) expect((await ask()).hits[0].path).toBe('sam.md');
      note(root, 'anniversary.md', 'Anniversary', 'My partner and I met ten years ago.');
      expect((await ask()).hits.map((h: any) => h.path)).toContain('anniversary.md');
      // Another process starts the vectors over with another model: the server's kept state is stale.
      const rebuilt = await zk(['--root', root, '--json', 'index', '--rebuild', '--embed-model', 'other-model'], { env: embedEnv() });
      expect(rebuilt.json).toMatchObject({ ok: true, vectors: { model: 'other-model', dimension: 32 } });
      const after = await ask();
      expect(after.ok).toBe(false);
      expect(after.error.message).toMatch(/^the vector index holds embeddings of model "other-model", not "test-model"/);
    } finally {
      await client.close();
    }
  });
});

describe('without a working embedder', () => {
  it('vector and hybrid are usage errors when none is configured; auto stays lexical', async () => {
    const root = corpus();
    for (const backend of ['vector', 'hybrid']) {
      const r = await zk(['--root', root, 'search', QUERY, '--backend', backend], { env: noEmbedEnv });
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        `error: search backend ${backend} needs an embedder: set ZK_MEMORY_EMBED=local for the built-in one, or pass --embed-base and --embed-model or set ZK_MEMORY_EMBED_BASE and ZK_MEMORY_EMBED_MODEL`,
      );
    }
    const auto = await search(root, [], noEmbedEnv);
    expect(auto.json).toEqual({ ok: true, query: QUERY, backend: 'fts', hits: [expect.objectContaining({ path: 'cake.md' })], server: false });
  });

  it('with the endpoint down, auto answers lexically at once (exit 0) and says why; vector fails with exit 3', async () => {
    const root = corpus();
    const down = await startEmbedServer(testVector);
    const env = embedEnv('test-model', down.url);
    expect((await search(root, ['--backend', 'hybrid'], env)).code).toBe(0);
    await down.close();
    const auto = await search(root, [], env);
    expect(auto.code).toBe(0);
    expect(auto.json.backend).toBe('fts');
    expect(auto.json.fallback).toBe(`vector search failed: embedding endpoint ${down.url}/v1/embeddings unreachable: connection refused (ECONNREFUSED)`);
    expect(paths(auto)).toEqual(['cake.md']);
    const human = await zk(['--root', root, 'search', QUERY], { env });
    expect(human.stderr).toMatch(/^warning: vector search failed: embedding endpoint \S+ unreachable: .*; answered with fts$/);
    const vector = await zk(['--root', root, '--json', 'search', QUERY, '--backend', 'vector'], { env: { ...env, ZK_MEMORY_EMBED_RETRIES: '0' } });
    expect(vector.code).toBe(3);
    expect(vector.json.error).toMatchObject({
      code: 'llm_unreachable',
      message: expect.stringMatching(/^embedding endpoint \S+ unreachable: connection refused/),
    });
  });
});

describe('past the size threshold', () => {
  it('builds the approximate index, still finds the nearest notes above the relevance floor, and finds notes added since', async () => {
    const root = corpus();
    const topics = ['billing', 'garden', 'kayak', 'office', 'budget', 'piano', 'hotel', 'plumber', 'invoice', 'glacier'];
    // Enough notes for the index to train on (its codebooks need 256), all alike in their words.
    for (let i = 0; i < 300; i++) note(root, `filler-${i}.md`, `Filler ${i}`, `Notes about the ${topics[i % 10]} and the ${topics[(i * 7) % 10]}, ref x${i}.`);
    const env = { ...embedEnv(), ZK_MEMORY_VECTOR_INDEX_ABOVE: '250' };

    const first = await search(root, ['--backend', 'vector'], env);
    expect(first.code, first.stdout).toBe(0);
    expect(readVectorState(root)?.ann).toEqual({ rows: 310, partitions: 18 });
    const table = await openTable(root, 'vectors');
    expect((await table!.listIndices()).map((i) => i.indexType)).toEqual(['IvfPq']);
    expect(paths(first)[0]).toBe('sam.md');
    // The same notes as an exact scan above the relevance floor, which leaves most notes out.
    const floor = relevanceFloor(readVectorState(root)?.baseline);
    const exact = (
      await table!.vectorSearch(testVector(QUERY, 'test-model')).distanceType('cosine').bypassVectorIndex().select(['path', '_distance']).limit(50).toArray()
    )
      .filter((r: any) => 1 - r._distance >= floor)
      .map((r: any) => r.path);
    expect(exact.length).toBeLessThan(50);
    expect(paths(first)).toEqual(exact.slice(0, paths(first).length));

    note(root, 'sam-party.md', 'Party', 'Sam turns forty: a party for the partner.');
    const after = await search(root, ['--backend', 'vector'], env);
    expect(paths(after).slice(0, 2).sort()).toEqual(['sam-party.md', 'sam.md']);
    expect(readVectorState(root)?.ann?.rows).toBe(310);
  });

  it('stays an exact scan at or below the threshold', async () => {
    const root = corpus();
    const r = await search(root, ['--backend', 'vector'], { ...embedEnv(), ZK_MEMORY_VECTOR_INDEX_ABOVE: '10' });
    expect(paths(r)[0]).toBe('sam.md');
    expect(readVectorState(root)?.ann).toBeUndefined();
    expect(await (await openTable(root, 'vectors'))!.listIndices()).toEqual([]);
  });
});
