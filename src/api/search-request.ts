import type { Embedder } from '../llm/embed.js';

/** What a search takes beyond the root and the query (src/api/search.ts). */
export interface SearchRequest {
  limit?: number;
  /** Only notes of this kind. */
  kind?: string;
  backend?: string;
  history?: boolean;
  /** An embedder to use instead of the configured endpoint. */
  embedder?: Embedder;
  /** Told, a line at a time, how a long embedding run goes (the first vector search embeds every note). */
  progress?: (line: string) => void;
  /** The memory as it stood at the end of this day (or at this moment): see src/api/search-time.ts. */
  asOf?: string;
  /** Only notes whose validity covers this day or moment, superseded ones included. */
  validAt?: string;
}
