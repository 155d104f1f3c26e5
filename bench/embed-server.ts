import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker, parentPort, workerData } from 'node:worker_threads';

/** The vector a text gets from a given model. */
export type VectorOf = (text: string, model: string) => number[];

/** A local OpenAI-compatible embeddings server that records what it was asked. */
export interface EmbedServer {
  /** Base URL, without `/v1`. */
  url: string;
  /** Every text it was asked to embed, in order. */
  inputs: string[];
  /** Every request's model and batch size, in order. */
  requests: { model: string; size: number }[];
  close(): Promise<void>;
}

/** Deterministic vectors: each word of the text hashed into one of `dims` buckets, so texts sharing words are close. */
export function hashedBagOfWords(text: string, dims = 64): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word) v[crypto.createHash('md5').update(word).digest().readUInt32LE(0) % dims] += 1;
  }
  return v;
}

/** A scripted answer to the n-th request (1-based), in place of the embeddings. */
export type Intercept = (n: number, headers: http.IncomingHttpHeaders) => { status: number; body: string } | undefined;

/** Serve `POST /v1/embeddings` on 127.0.0.1 (any free port unless given). */
export async function startEmbedServer(vectorOf: VectorOf, opts: { port?: number; intercept?: Intercept } = {}): Promise<EmbedServer> {
  const inputs: string[] = [];
  const requests: { model: string; size: number }[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const scripted = opts.intercept?.(++n, req.headers);
      if (scripted) {
        res.writeHead(scripted.status, { 'content-type': 'application/json' }).end(scripted.body);
        return;
      }
      const body = req.method === 'POST' && req.url === '/v1/embeddings' ? JSON.parse(raw || '{}') : undefined;
      if (!body || !Array.isArray(body.input)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const texts = body.input as string[];
      inputs.push(...texts);
      requests.push({ model: body.model, size: texts.length });
      const data = texts.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t, body.model) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model: body.model, data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inputs,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * The hashed bag-of-words server on a worker thread, so it keeps answering while the calling
 * thread waits in a synchronous child-process call.
 */
export async function startEmbedWorker(): Promise<{ url: string; stop: () => Promise<number> }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { embedServer: true } });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { url, stop: () => worker.terminate() };
}

if (parentPort && workerData?.embedServer) {
  const port = parentPort;
  void startEmbedServer((text) => hashedBagOfWords(text)).then((s) => port.postMessage(s.url));
}
