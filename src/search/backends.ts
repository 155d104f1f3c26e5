import { settings } from '../context.js';
import { ZkError } from '../errors.js';
import type { Embedder } from '../llm/embed.js';
import { BACKENDS, type BackendName, type SearchOptions, type SearchProvider, type SearchOutcome } from './types.js';
import { parseQuery, type Query } from './terms.js';

export type { BackendName, SearchHit, SearchOptions, SearchOutcome } from './types.js';

export const DEFAULT_LIMIT = 8;

/** The backend in force: the flag, else ZK_MEMORY_BACKEND, else auto. Every internal search uses it. */
export function configuredBackend(flag?: string): BackendName {
  const name = (flag?.trim() || settings().backend() || 'auto').toLowerCase();
  if (!(BACKENDS as readonly string[]).includes(name)) {
    throw new ZkError('usage', `unknown search backend: ${JSON.stringify(name)} (one of ${BACKENDS.join(', ')})`);
  }
  return name as BackendName;
}

async function rg(): Promise<SearchProvider> {
  return (await import('./rg.js')).rgProvider;
}

async function fts(): Promise<SearchProvider> {
  return (await import('./fts.js')).ftsProvider;
}

function oneLine(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split('\n')[0]
    .slice(0, 300);
}

/** What `searchCorpus` takes beyond the query: limit, history, backend, and the embedding endpoint. */
export type SearchCorpusOptions = SearchOptions & {
  backend?: string;
  /** An embedder to use instead of the configured one (an endpoint by `ZK_MEMORY_EMBED_*` or this call's flags, else the built-in model). */
  embedder?: Embedder;
  /** Told, a line at a time, how a long embedding run goes (the first vector search embeds every note). */
  progress?: (line: string) => void;
};

async function requireEmbedder(backend: string, embedder: Embedder | undefined): Promise<Embedder> {
  if (!embedder)
    throw new ZkError(
      'usage',
      `search backend ${backend} needs an embedder: set ZK_MEMORY_EMBED=local for the built-in one, or ${(await import('../llm/config.js')).EMBED_FLAGS_HINT}`,
    );
  return embedder;
}

/**
 * `auto`: hybrid when an embedder is configured (an endpoint, else the built-in model unless
 * `ZK_MEMORY_EMBED=off`) and answers, else full-text, else rg. Each step
 * down says why in `fallback`; the lexical answer never waits on a retry of a dead embedder.
 */
async function autoSearch(root: string, query: Query, o: SearchCorpusOptions & { limit: number }, embedder?: Embedder): Promise<SearchOutcome> {
  const hybrid = await import('./hybrid.js');
  let lexical: import('./hybrid.js').LexicalPool;
  try {
    lexical = await hybrid.lexicalPool(root, query, o, embedder ? hybrid.poolFor(o) : o.limit);
  } catch (err) {
    return { backend: 'rg', fallback: `fts failed: ${oneLine(err)}`, hits: await (await rg()).search(root, query, o) };
  }
  if (!embedder) return { backend: 'fts', hits: lexical.hits };
  try {
    return { backend: 'hybrid', hits: await hybrid.fuseWithVectors(root, query, o, lexical, embedder, 0) };
  } catch (err) {
    return { backend: 'fts', fallback: `vector search failed: ${oneLine(err)}`, hits: lexical.hits.slice(0, o.limit) };
  }
}

/**
 * Search the corpus with the configured backend. `auto` answers with hybrid when an embedding
 * endpoint is configured, else fts, and steps down (hybrid → fts → rg) on failure, saying why in
 * `fallback`. A query given as text is parsed here, once for every backend and snippet.
 */
export async function searchCorpus(root: string, asked: Query | string, opts: SearchCorpusOptions = {}): Promise<SearchOutcome> {
  const query = typeof asked === 'string' ? parseQuery(asked) : asked;
  const backend = configuredBackend(opts.backend);
  const o = { ...opts, limit: opts.limit ?? DEFAULT_LIMIT };
  // The embedding client is loaded only by the backends that embed.
  const embedder = async () => opts.embedder ?? (await import('./embedder.js')).searchEmbedder();
  switch (backend) {
    case 'rg':
      return { backend: 'rg', hits: await (await rg()).search(root, query, o) };
    case 'fts':
      return { backend: 'fts', hits: await (await fts()).search(root, query, o) };
    case 'auto':
      return autoSearch(root, query, o, await embedder());
    case 'vector': {
      const e = await requireEmbedder(backend, await embedder());
      return { backend, hits: await (await import('./hybrid.js')).vectorHits(root, query, o, e) };
    }
    case 'hybrid': {
      const e = await requireEmbedder(backend, await embedder());
      const hybrid = await import('./hybrid.js');
      const lexical = await hybrid.lexicalPool(root, query, o, hybrid.poolFor(o));
      return { backend, hits: await hybrid.fuseWithVectors(root, query, o, lexical, e) };
    }
  }
}
