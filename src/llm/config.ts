import { ZkError } from '../errors.js';

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
}

/** Everything the chat-completions adapter needs to know. */
export interface LlmConfig extends EndpointConfig {
  /** Room for the answer; small caps cut long answers in half. */
  maxTokens: number;
}

/** The commander flags (camel-cased) that configure the LLM. */
export interface LlmFlags {
  llmBase?: string;
  llmModel?: string;
  llmKey?: string;
  llmTimeout?: string;
  llmMaxTokens?: string;
  llmRetries?: string;
}

export const LLM_DEFAULTS = {
  timeoutSeconds: 180,
  maxTokens: 8192,
  retries: 3,
  backoffSeconds: 1,
  maxRetryAfterSeconds: 60,
} as const;

export const LLM_UNCONFIGURED =
  'no LLM configured: pass --llm-base and --llm-model or set ZK_MEMORY_LLM_BASE and ZK_MEMORY_LLM_MODEL';

export type Env = Record<string, string | undefined>;

/** A flag's value, else the environment's; blank counts as unset. */
export function pick(flag: string | undefined, env: string | undefined): string | undefined {
  const v = (flag ?? '').trim() || (env ?? '').trim();
  return v || undefined;
}

export function positiveNumber(raw: string | undefined, what: string, fallback: number, opts: { integer?: boolean; zero?: boolean } = {}): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  const ok = Number.isFinite(n) && (opts.zero ? n >= 0 : n > 0) && (!opts.integer || Number.isInteger(n));
  if (!ok) {
    const kind = opts.integer ? 'a whole number' : 'a number';
    throw new ZkError('usage', `${what} takes ${kind} ${opts.zero ? '>= 0' : '> 0'}, not ${JSON.stringify(raw)}`);
  }
  return n;
}

/** The flag family of one endpoint: `llm` reads `--llm-*` and `ZK_MEMORY_LLM_*`, `embed` the `--embed-*` ones. */
export type EndpointKind = 'llm' | 'embed';

/** Flag values keyed the way commander camel-cases them (`llmBase`, `embedTimeout`, …). */
type KindFlags = Partial<Record<string, string | undefined>>;

/** One setting of an endpoint: the `--<kind>-<name>` flag, else `ZK_MEMORY_<KIND>_<NAME>`. */
export function endpointSetting(kind: EndpointKind, name: string, flags: KindFlags, env: Env): string | undefined {
  const camel = kind + name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());
  return pick(flags[camel], env[`ZK_MEMORY_${kind.toUpperCase()}_${name.toUpperCase().replace(/-/g, '_')}`]);
}

/**
 * The base, model, key and call policy of one endpoint from its flags, else the environment;
 * undefined unless both base and model are set. Malformed numbers are usage errors.
 */
export function endpointConfig(
  kind: EndpointKind,
  flags: KindFlags,
  env: Env,
  defaults: { timeoutSeconds: number; retries: number },
): EndpointConfig | undefined {
  const setting = (name: string) => endpointSetting(kind, name, flags, env);
  const timeout = positiveNumber(setting('timeout'), `--${kind}-timeout (seconds)`, defaults.timeoutSeconds);
  const retries = positiveNumber(setting('retries'), `--${kind}-retries`, defaults.retries, { integer: true, zero: true });
  const backoff = positiveNumber(endpointSetting(kind, 'backoff', {}, env), `ZK_MEMORY_${kind.toUpperCase()}_BACKOFF (seconds)`, LLM_DEFAULTS.backoffSeconds);
  const base = setting('base');
  const model = setting('model');
  if (!base || !model) return undefined;
  return {
    base,
    model,
    key: setting('key'),
    timeoutMs: timeout * 1000,
    retries,
    backoffMs: backoff * 1000,
    maxRetryAfterMs: LLM_DEFAULTS.maxRetryAfterSeconds * 1000,
  };
}

/** True when an endpoint of this kind is configured (base and model set). */
export function endpointConfigured(kind: EndpointKind, flags: KindFlags, env: Env): boolean {
  return Boolean(endpointSetting(kind, 'base', flags, env) && endpointSetting(kind, 'model', flags, env));
}

/**
 * The LLM configuration from flags, else `ZK_MEMORY_LLM_*`; undefined unless both base and model
 * are set. Malformed numbers are usage errors.
 */
export function llmConfig(flags: LlmFlags = {}, env: Env = process.env): LlmConfig | undefined {
  const f = flags as KindFlags;
  const maxTokens = positiveNumber(endpointSetting('llm', 'max-tokens', f, env), '--llm-max-tokens', LLM_DEFAULTS.maxTokens, { integer: true });
  const endpoint = endpointConfig('llm', f, env, LLM_DEFAULTS);
  return endpoint && { ...endpoint, maxTokens };
}

/** True when an LLM is configured (base and model set). */
export function llmConfigured(flags: LlmFlags = {}, env: Env = process.env): boolean {
  return endpointConfigured('llm', flags as KindFlags, env);
}

/** The configuration, or the `llm_unconfigured` error (exit 3) commands report. */
export function requireLlmConfig(flags: LlmFlags = {}, env: Env = process.env): LlmConfig {
  const config = llmConfig(flags, env);
  if (!config) throw new ZkError('llm_unconfigured', LLM_UNCONFIGURED);
  return config;
}

/** Everything the embeddings client needs to know. */
export interface EmbedConfig extends EndpointConfig {
  /** Texts sent per request. */
  batchSize: number;
  /** Characters of a note (title first) that are embedded; the rest is left out. */
  maxChars: number;
}

/** The commander flags (camel-cased) that configure the embedding endpoint. */
export interface EmbedFlags {
  embedBase?: string;
  embedModel?: string;
  embedKey?: string;
  embedTimeout?: string;
  embedBatch?: string;
}

export const EMBED_DEFAULTS = {
  timeoutSeconds: 60,
  retries: 3,
  batchSize: 64,
  maxChars: 2000,
} as const;

export const EMBED_FLAGS_HINT = 'pass --embed-base and --embed-model or set ZK_MEMORY_EMBED_BASE and ZK_MEMORY_EMBED_MODEL';

/**
 * The embedding endpoint from flags, else `ZK_MEMORY_EMBED_*`; undefined unless both base and model
 * are set. Malformed numbers are usage errors.
 */
export function embedConfig(flags: EmbedFlags = {}, env: Env = process.env): EmbedConfig | undefined {
  const f = flags as KindFlags;
  const batchSize = positiveNumber(endpointSetting('embed', 'batch', f, env), '--embed-batch', EMBED_DEFAULTS.batchSize, { integer: true });
  const maxChars = positiveNumber(endpointSetting('embed', 'max-chars', {}, env), 'ZK_MEMORY_EMBED_MAX_CHARS', EMBED_DEFAULTS.maxChars, { integer: true });
  const endpoint = endpointConfig('embed', f, env, EMBED_DEFAULTS);
  return endpoint && { ...endpoint, batchSize, maxChars };
}
