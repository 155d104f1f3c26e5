import type { Embedder } from '../llm/embed.js';
import { callWarmIndex } from './warm.js';

/**
 * The embedder a search uses: the configured one (src/llm/embed.ts `configuredEmbedder`). A
 * resident process keeps the built-in one between calls, so its model is loaded once.
 */
export async function searchEmbedder(): Promise<Embedder | undefined> {
  const { configuredEmbedder, embedderChoice } = await import('../llm/embed.js');
  const choice = embedderChoice();
  const warm = callWarmIndex();
  if (choice.kind !== 'local' || !warm) return configuredEmbedder();
  const key = `local:${choice.modelDir ?? ''}`;
  let kept = warm.embedders.get(key);
  if (!kept) {
    kept = (await configuredEmbedder())!;
    warm.embedders.set(key, kept);
  }
  return kept;
}
