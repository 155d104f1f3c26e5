import { ZkError } from '../errors.js';
import type { Embedder } from './types.js';
import { settings as currentSettings } from '../context.js';
import type { Settings } from '../settings.js';
import { embedConfig, type EmbedConfig } from './config.js';
import { postJson } from './http.js';
import { endpointPostOptions, openAiUrl, postResult, readAnswer } from './openai.js';

export type { Embedder } from './types.js';

/** The embeddings endpoint of a base URL given with or without its version segment. */
export function embeddingsUrl(base: string): string {
  return openAiUrl(base, 'embeddings');
}

const failed = (reason: string) => new ZkError('llm_failed', `embedding endpoint failed: ${reason}`);

function isVector(v: unknown): v is number[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
}

/** The vectors of an embeddings answer in input order, or why there are none. */
function readEmbeddings(text: string, count: number): number[][] | { failure: string } {
  const read = readAnswer(text);
  if ('failure' in read) return read;
  const data: { index?: unknown; embedding?: unknown }[] = Array.isArray(read.body.data) ? read.body.data : [];
  if (data.length !== count) return { failure: `asked for ${count} embeddings, got ${data.length}` };
  const ordered = data.every((d) => Number.isInteger(d?.index)) ? [...data].sort((a, b) => Number(a.index) - Number(b.index)) : data;
  const vectors = ordered.map((d) => d?.embedding);
  if (!vectors.every(isVector)) return { failure: 'an embedding is not a list of numbers' };
  if (vectors.some((v) => v.length !== vectors[0].length)) return { failure: 'embeddings of one answer differ in dimension' };
  return vectors;
}

/** An Embedder over an OpenAI-compatible `POST /v1/embeddings`, batched, with the endpoint's timeout and retries. */
export function openAiEmbedder(config: EmbedConfig): Embedder {
  const url = embeddingsUrl(config.base);
  const postOptions = endpointPostOptions(config);

  async function embedBatch(inputs: string[], retries: number): Promise<number[][]> {
    const out = await postJson(url, { model: config.model, input: inputs }, { ...postOptions, retries });
    const result = postResult(out, `embedding endpoint ${url}`);
    if ('failure' in result) throw result.kind === 'unreachable' ? new ZkError('llm_unreachable', result.failure) : failed(result.failure);
    const vectors = readEmbeddings(result.text, inputs.length);
    if ('failure' in vectors) throw failed(vectors.failure);
    return vectors;
  }

  return {
    model: config.model,
    async embed(texts, opts = {}) {
      const inputs = texts.map((t) => t.slice(0, config.maxChars));
      const vectors: number[][] = [];
      for (let i = 0; i < inputs.length; i += config.batchSize) {
        vectors.push(...(await embedBatch(inputs.slice(i, i + config.batchSize), opts.retries ?? config.retries)));
        if (vectors.at(-1)!.length !== vectors[0].length) throw failed('embeddings of one run differ in dimension');
      }
      return vectors;
    },
  };
}

/** Which embedder the settings choose: an endpoint (`ZK_MEMORY_EMBED_BASE` and `_MODEL`) wins, else the built-in one unless `ZK_MEMORY_EMBED=off`. */
export type EmbedderChoice = { kind: 'endpoint'; config: EmbedConfig } | { kind: 'local'; modelDir?: string } | { kind: 'none' };

export function embedderChoice(s: Settings = currentSettings()): EmbedderChoice {
  const config = embedConfig(s);
  if (config) return { kind: 'endpoint', config };
  if (s.embedMode() === 'off') return { kind: 'none' };
  return { kind: 'local', modelDir: s.localEmbedModel() };
}

/**
 * The configured embedder (an endpoint, by `ZK_MEMORY_EMBED_*` or the flags of this call; else the
 * built-in model), or undefined when `ZK_MEMORY_EMBED=off` and no endpoint is configured. The
 * built-in model is loaded only when it first embeds.
 */
export async function configuredEmbedder(s: Settings = currentSettings()): Promise<Embedder | undefined> {
  const choice = embedderChoice(s);
  if (choice.kind === 'endpoint') return openAiEmbedder(choice.config);
  if (choice.kind === 'local') return (await import('./local-embed.js')).localEmbedder(choice.modelDir);
  return undefined;
}
