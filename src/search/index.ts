import { ZkError } from '../errors.js';
import { rgProvider } from './rg.js';
import { BACKENDS, type BackendName, type SearchOptions, type SearchProvider, type SearchResult } from './types.js';

export type { BackendName, SearchHit, SearchOptions, SearchResult } from './types.js';

export const DEFAULT_LIMIT = 8;

/** The backend in force: the flag, else ZK_MEMORY_BACKEND, else auto. Every internal search uses it. */
export function configuredBackend(flag?: string): BackendName {
  const name = (flag || process.env.ZK_MEMORY_BACKEND || 'auto').trim().toLowerCase();
  if (!(BACKENDS as readonly string[]).includes(name)) {
    throw new ZkError('usage', `unknown search backend: ${JSON.stringify(name)} (one of ${BACKENDS.join(', ')})`);
  }
  return name as BackendName;
}

async function fts(): Promise<SearchProvider> {
  return (await import('./fts.js')).ftsProvider;
}

function oneLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0].slice(0, 300);
}

/**
 * Search the corpus with the configured backend. `auto` answers with fts and falls back to rg on
 * any fts failure, saying why in `fallback`.
 */
export async function searchCorpus(root: string, query: string, opts: SearchOptions & { backend?: string } = {}): Promise<SearchResult> {
  const backend = configuredBackend(opts.backend);
  const o = { ...opts, limit: opts.limit ?? DEFAULT_LIMIT };
  switch (backend) {
    case 'rg':
      return { backend: 'rg', hits: await rgProvider.search(root, query, o) };
    case 'fts':
      return { backend: 'fts', hits: await (await fts()).search(root, query, o) };
    case 'auto':
      try {
        return { backend: 'fts', hits: await (await fts()).search(root, query, o) };
      } catch (err) {
        return { backend: 'rg', fallback: `fts failed: ${oneLine(err)}`, hits: await rgProvider.search(root, query, o) };
      }
    case 'vector':
    case 'hybrid':
      throw new ZkError('usage', `search backend ${backend} needs an embedding endpoint: pass --embed-base and --embed-model or set ZK_MEMORY_EMBED_BASE and ZK_MEMORY_EMBED_MODEL`);
  }
}
