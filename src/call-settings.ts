import type { Env } from './settings.js';

/**
 * The settings that belong to one call rather than to the process that answers it: which corpus
 * and backend, whose name goes on what it writes, the LLM and embedding endpoints, whether to
 * commit, how to write links and cut segments, whether to redact, how long a hook may take. A resident server answering a command or an MCP
 * session takes these from the client, and only these; everything else (limits, lock and lease
 * times, where the index lives, the socket folder, fault seams for tests) is the server's own,
 * from the environment it was started with (docs/server.md "Per-call settings").
 */
export const CALL_SETTINGS: readonly string[] = [
  'ZK_MEMORY_ROOT',
  'ZK_MEMORY_SOURCE',
  'ZK_MEMORY_BACKEND',
  'ZK_MEMORY_GIT_COMMIT',
  'ZK_MEMORY_LINK_STYLE',
  'ZK_MEMORY_SEGMENT_CHARS',
  // Whether what the call writes is redacted (an agent host's MCP entry sets it), and how long a hook may take.
  'ZK_MEMORY_REDACT',
  'ZK_MEMORY_HOOK_TIMEOUT',
  ...['BASE', 'MODEL', 'KEY', 'TIMEOUT', 'MAX_TOKENS', 'RETRIES', 'BACKOFF'].map((n) => `ZK_MEMORY_LLM_${n}`),
  // Which embedder: the built-in one or none (ZK_MEMORY_EMBED), or an endpoint.
  'ZK_MEMORY_EMBED',
  ...['BASE', 'MODEL', 'KEY', 'TIMEOUT', 'BATCH', 'RETRIES', 'BACKOFF', 'MAX_CHARS'].map((n) => `ZK_MEMORY_EMBED_${n}`),
];

const isCallSetting = new Set(CALL_SETTINGS);

/** The per-call settings `env` holds, as a client sends them with its request. */
export function callSettings(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CALL_SETTINGS) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The environment a call runs with in a server: the server's own, with every per-call setting
 * replaced by the client's (a setting the client has not set is unset for its call, whatever the
 * server's own environment says). Names outside the list, and values that are not text, are
 * ignored: a client cannot reach the server's process settings.
 */
export function envForCall(processEnv: Env, sent: unknown): Env {
  const env: Env = {};
  for (const [name, value] of Object.entries(processEnv)) if (!isCallSetting.has(name)) env[name] = value;
  if (sent && typeof sent === 'object' && !Array.isArray(sent)) {
    for (const [name, value] of Object.entries(sent)) if (isCallSetting.has(name) && typeof value === 'string') env[name] = value;
  }
  return env;
}
