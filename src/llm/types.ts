/** One chat message as the OpenAI-compatible protocol carries it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What one structured call asks for: an object shaped by `schema`, recorded under `name`. */
export interface StructuredCallOptions {
  /** JSON Schema of the answer object. */
  schema: Record<string, unknown>;
  /** Function name the answer is recorded under (e.g. `record_candidates`). */
  name: string;
  /** What the answer records, in a sentence; shown to the model. */
  description?: string;
  /**
   * Told why the call failed when it resolves to null (one line, for traces and messages), and
   * what kind of failure it was (absent means `transport`).
   */
  onFailure?: (reason: string, kind?: LlmFailureKind) => void;
}

/**
 * Why a call gave no answer. `transport`: no usable response at all (timeout, an HTTP error); the
 * adapter has already retried what was worth retrying. `unreachable`: the endpoint cannot be used
 * at all (connection refused, no such host, TLS failed, HTTP 401 or 403), so every further call
 * would fail alike. `unparseable`: the model answered, but with text that holds no JSON object;
 * asking again can help.
 */
export type LlmFailureKind = 'transport' | 'unreachable' | 'unparseable';

/**
 * The model as the library sees it: messages in, one JSON object out. A model failure (dead
 * endpoint, garbage, timeout) never throws: it resolves to null and reports why, and which kind of
 * failure it was, via `onFailure`.
 * The library owns prompts, schemas and validation; implementations only transport.
 */
export interface StructuredLLM {
  (messages: ChatMessage[], options: StructuredCallOptions): Promise<Record<string, unknown> | null>;
  /** The model id, recorded in every trace line of a judged call. */
  readonly model?: string;
}

/** Turns texts into vectors: one per text, in order, all of one dimension. */
export interface Embedder {
  /** The model id; the vector index is pinned to it. */
  readonly model: string;
  /**
   * Embed the texts (each clipped to the embedder's character cap). Throws a ZkError (exit 3):
   * `llm_unreachable` when the endpoint cannot be reached, else `llm_failed` when it fails or
   * answers something unusable.
   * `retries` overrides the configured retries, e.g. 0 for a call that has a fallback.
   */
  embed(texts: string[], opts?: { retries?: number }): Promise<number[][]>;
  /**
   * True for an embedder too slow to catch up on every pending note while a search waits (the
   * built-in one): searches use the vectors there are, and notes are embedded in the background
   * (the resident server) or by `index`. Else the first search embeds what is pending.
   */
  readonly background?: boolean;
}
