import type { Override } from '../settings.js';

/**
 * Flags that stand for settings: given on the command line, they override the variable of the same
 * meaning for this one call (src/settings.ts), so a flag and its variable are one setting. Keyed by
 * the name commander gives the parsed flag.
 */
export const FLAG_SETTINGS: Record<string, [string, string]> = {
  llmBase: ['ZK_MEMORY_LLM_BASE', '--llm-base'],
  llmModel: ['ZK_MEMORY_LLM_MODEL', '--llm-model'],
  llmKey: ['ZK_MEMORY_LLM_KEY', '--llm-key'],
  llmTimeout: ['ZK_MEMORY_LLM_TIMEOUT', '--llm-timeout'],
  llmMaxTokens: ['ZK_MEMORY_LLM_MAX_TOKENS', '--llm-max-tokens'],
  llmRetries: ['ZK_MEMORY_LLM_RETRIES', '--llm-retries'],
  embedBase: ['ZK_MEMORY_EMBED_BASE', '--embed-base'],
  embedModel: ['ZK_MEMORY_EMBED_MODEL', '--embed-model'],
  embedKey: ['ZK_MEMORY_EMBED_KEY', '--embed-key'],
  embedTimeout: ['ZK_MEMORY_EMBED_TIMEOUT', '--embed-timeout'],
  embedBatch: ['ZK_MEMORY_EMBED_BATCH', '--embed-batch'],
  embedRetries: ['ZK_MEMORY_EMBED_RETRIES', '--embed-retries'],
  commit: ['ZK_MEMORY_GIT_COMMIT', '--commit'],
};

/** The setting overrides a command's parsed flags carry. */
export function flagOverrides(flags: Record<string, unknown>): Record<string, Override> {
  const out: Record<string, Override> = {};
  for (const [key, [name, flag]] of Object.entries(FLAG_SETTINGS)) {
    if (typeof flags[key] === 'string') out[name] = { value: flags[key] as string, flag };
    else if (flags[key] === true) out[name] = { value: '1', flag };
  }
  return out;
}

/**
 * The setting overrides of `zk-memory mcp`'s flags (its LLM and embedding flags, as `--flag value`
 * or `--flag=value`), read without the command-line parser; undefined when an argument is not one
 * of them: the command line then answers it, with its message.
 */
export function mcpFlagOverrides(args: string[]): Record<string, Override> | undefined {
  const byFlag = new Map(
    Object.values(FLAG_SETTINGS)
      .filter(([, flag]) => flag !== '--commit')
      .map(([name, flag]) => [flag, name]),
  );
  const out: Record<string, Override> = {};
  for (let i = 0; i < args.length; i++) {
    const eq = args[i].indexOf('=');
    const flag = eq > 0 ? args[i].slice(0, eq) : args[i];
    const name = byFlag.get(flag);
    if (!name) return undefined;
    const value = eq > 0 ? args[i].slice(eq + 1) : args[++i];
    if (value === undefined) return undefined;
    out[name] = { value, flag };
  }
  return out;
}
