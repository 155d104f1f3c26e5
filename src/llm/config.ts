import { ZkError } from '../errors.js';

/** Everything the chat-completions adapter needs to know. */
export interface LlmConfig {
  /** Server base URL, with or without a trailing `/v1`. */
  base: string;
  model: string;
  /** Sent as `Authorization: Bearer`; local servers need none. */
  key?: string;
  /** Per request. */
  timeoutMs: number;
  /** Room for the answer; small caps cut long answers in half. */
  maxTokens: number;
  /** Extra attempts after a 429, a 5xx or a network error. */
  retries: number;
  /** First backoff delay; doubles per attempt, plus jitter. */
  backoffMs: number;
  /** Longest wait honoured from a Retry-After header (and the cap of any backoff). */
  maxRetryAfterMs: number;
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

type Env = Record<string, string | undefined>;

function pick(flag: string | undefined, env: string | undefined): string | undefined {
  const v = (flag ?? '').trim() || (env ?? '').trim();
  return v || undefined;
}

function positiveNumber(raw: string | undefined, what: string, fallback: number, opts: { integer?: boolean; zero?: boolean } = {}): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  const ok = Number.isFinite(n) && (opts.zero ? n >= 0 : n > 0) && (!opts.integer || Number.isInteger(n));
  if (!ok) {
    const kind = opts.integer ? 'a whole number' : 'a number';
    throw new ZkError('usage', `${what} takes ${kind} ${opts.zero ? '>= 0' : '> 0'}, not ${JSON.stringify(raw)}`);
  }
  return n;
}

/**
 * The LLM configuration from flags, else `ZK_MEMORY_LLM_*`; undefined unless both base and model
 * are set. Malformed numbers are usage errors.
 */
export function llmConfig(flags: LlmFlags = {}, env: Env = process.env): LlmConfig | undefined {
  const base = pick(flags.llmBase, env.ZK_MEMORY_LLM_BASE);
  const model = pick(flags.llmModel, env.ZK_MEMORY_LLM_MODEL);
  const timeout = positiveNumber(pick(flags.llmTimeout, env.ZK_MEMORY_LLM_TIMEOUT), '--llm-timeout (seconds)', LLM_DEFAULTS.timeoutSeconds);
  const maxTokens = positiveNumber(pick(flags.llmMaxTokens, env.ZK_MEMORY_LLM_MAX_TOKENS), '--llm-max-tokens', LLM_DEFAULTS.maxTokens, { integer: true });
  const retries = positiveNumber(pick(flags.llmRetries, env.ZK_MEMORY_LLM_RETRIES), '--llm-retries', LLM_DEFAULTS.retries, { integer: true, zero: true });
  const backoff = positiveNumber(pick(undefined, env.ZK_MEMORY_LLM_BACKOFF), 'ZK_MEMORY_LLM_BACKOFF (seconds)', LLM_DEFAULTS.backoffSeconds);
  if (!base || !model) return undefined;
  return {
    base,
    model,
    key: pick(flags.llmKey, env.ZK_MEMORY_LLM_KEY),
    timeoutMs: timeout * 1000,
    maxTokens,
    retries,
    backoffMs: backoff * 1000,
    maxRetryAfterMs: LLM_DEFAULTS.maxRetryAfterSeconds * 1000,
  };
}

/** True when an LLM is configured (base and model set). */
export function llmConfigured(flags: LlmFlags = {}, env: Env = process.env): boolean {
  return Boolean(pick(flags.llmBase, env.ZK_MEMORY_LLM_BASE) && pick(flags.llmModel, env.ZK_MEMORY_LLM_MODEL));
}

/** The configuration, or the `llm_unconfigured` error (exit 3) commands report. */
export function requireLlmConfig(flags: LlmFlags = {}, env: Env = process.env): LlmConfig {
  const config = llmConfig(flags, env);
  if (!config) throw new ZkError('llm_unconfigured', LLM_UNCONFIGURED);
  return config;
}
