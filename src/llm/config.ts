import { ZkError } from '../errors.js';
import { settings as currentSettings } from '../context.js';
import type { Settings } from '../settings.js';
import { hint } from '../hints.js';

/** Where an OpenAI-compatible endpoint is and how patiently to call it. */
export interface EndpointConfig {
  /** Server base URL, with or without a trailing `/v1`. */
  base: string;
  model: string;
  /** Sent as `Authorization: Bearer`; local servers need none. */
  key?: string;
  /** Per request. */
  timeoutMs: number;
  /** Extra attempts after a 429, a 5xx or a network error. */
  retries: number;
  /** First backoff delay; doubles per attempt, plus jitter. */
  backoffMs: number;
  /** Longest wait honoured from a Retry-After header (and the cap of any backoff). */
  maxRetryAfterMs: number;
  /** How a wait between attempts is made (default: a timer); a test counts the waits instead. */
  sleep?: (ms: number) => Promise<void>;
}

/** Everything the chat-completions adapter needs to know. */
export interface LlmConfig extends EndpointConfig {
  /** Room for the answer; small caps cut long answers in half. */
  maxTokens: number;
}

export const LLM_DEFAULTS = {
  timeoutSeconds: 180,
  maxTokens: 8192,
  retries: 3,
  backoffSeconds: 1,
  maxRetryAfterSeconds: 60,
} as const;

/** Why a call that needs an LLM could not have one, in the words of whoever reads it. */
export function llmUnconfigured(): string {
  return `no LLM configured: ${hint('configureLlm')}`;
}

/** The setting family of one endpoint: `llm` reads `ZK_MEMORY_LLM_*`, `embed` reads `ZK_MEMORY_EMBED_*`. */
export type EndpointKind = 'llm' | 'embed';

/** The variable of one endpoint setting: `ZK_MEMORY_LLM_MAX_TOKENS` for (`llm`, `max-tokens`). */
export function endpointVariable(kind: EndpointKind, name: string): string {
  return `ZK_MEMORY_${kind.toUpperCase()}_${name.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * The base, model, key and call policy of one endpoint; undefined unless both base and model are
 * set. Malformed numbers are usage errors naming the flag or variable they came from.
 */
function endpointConfig(kind: EndpointKind, s: Settings, defaults: { timeoutSeconds: number; retries: number }): EndpointConfig | undefined {
  const v = (name: string) => endpointVariable(kind, name);
  const timeout = s.number(v('timeout'), defaults.timeoutSeconds);
  const retries = s.number(v('retries'), defaults.retries, { integer: true, zero: true });
  const backoff = s.number(v('backoff'), LLM_DEFAULTS.backoffSeconds);
  const base = s.text(v('base'));
  const model = s.text(v('model'));
  if (!base || !model) return undefined;
  return {
    base,
    model,
    key: s.text(v('key')),
    timeoutMs: timeout * 1000,
    retries,
    backoffMs: backoff * 1000,
    maxRetryAfterMs: LLM_DEFAULTS.maxRetryAfterSeconds * 1000,
  };
}

/** True when an endpoint of this kind is configured (base and model set). */
export function endpointConfigured(kind: EndpointKind, s: Settings = currentSettings()): boolean {
  return Boolean(s.text(endpointVariable(kind, 'base')) && s.text(endpointVariable(kind, 'model')));
}

/** The LLM configuration; undefined unless both base and model are set. */
export function llmConfig(s: Settings = currentSettings()): LlmConfig | undefined {
  const maxTokens = s.number(endpointVariable('llm', 'max-tokens'), LLM_DEFAULTS.maxTokens, { integer: true });
  const endpoint = endpointConfig('llm', s, LLM_DEFAULTS);
  return endpoint && { ...endpoint, maxTokens };
}

/** True when an LLM is configured (base and model set). */
export function llmConfigured(s: Settings = currentSettings()): boolean {
  return endpointConfigured('llm', s);
}

/** The configuration, or the `llm_unconfigured` error (exit 3) commands report. */
export function requireLlmConfig(s: Settings = currentSettings()): LlmConfig {
  const config = llmConfig(s);
  if (!config) throw new ZkError('llm_unconfigured', llmUnconfigured());
  return config;
}

/** Everything the embeddings client needs to know. */
export interface EmbedConfig extends EndpointConfig {
  /** Texts sent per request. */
  batchSize: number;
  /** Characters of a note (title first) that are embedded; the rest is left out. */
  maxChars: number;
}

export const EMBED_DEFAULTS = {
  timeoutSeconds: 60,
  retries: 3,
  batchSize: 64,
  maxChars: 2000,
} as const;

export const EMBED_FLAGS_HINT = 'pass --embed-base and --embed-model or set ZK_MEMORY_EMBED_BASE and ZK_MEMORY_EMBED_MODEL';

/** The embedding endpoint; undefined unless both base and model are set. */
export function embedConfig(s: Settings = currentSettings()): EmbedConfig | undefined {
  const batchSize = s.number(endpointVariable('embed', 'batch'), EMBED_DEFAULTS.batchSize, { integer: true });
  const maxChars = s.number(endpointVariable('embed', 'max-chars'), EMBED_DEFAULTS.maxChars, { integer: true });
  const endpoint = endpointConfig('embed', s, EMBED_DEFAULTS);
  return endpoint && { ...endpoint, batchSize, maxChars };
}
