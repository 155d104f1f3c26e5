import type { Embedder } from '../ports.js';
import { current } from '../context.js';
import { residentIndex } from './resident-index.js';

/**
 * The embedder a search uses: the one the call's models port gives (src/compose.ts). A resident
 * process keeps one worth keeping (the built-in one) between calls, so its model is loaded once.
 */
export async function searchEmbedder(): Promise<Embedder | undefined> {
  const models = current().models;
  if (!models) return undefined;
  const key = models.embedderKey();
  const kept = residentIndex();
  if (key === undefined || !kept) return models.embedder();
  let embedder = kept.embedders.get(key);
  if (!embedder) {
    embedder = await models.embedder();
    if (embedder) kept.embedders.set(key, embedder);
  }
  return embedder;
}
