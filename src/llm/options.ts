import type { Command } from 'commander';
import { EMBED_DEFAULTS, LLM_DEFAULTS } from './config.js';

/** Add the LLM flags every LLM command takes; their values land in `LlmFlags`. */
export function addLlmOptions(cmd: Command): Command {
  return cmd
    .option('--llm-base <url>', 'OpenAI-compatible server, with or without /v1 (else ZK_MEMORY_LLM_BASE)')
    .option('--llm-model <id>', 'model id (else ZK_MEMORY_LLM_MODEL)')
    .option('--llm-key <key>', 'API key, sent as a bearer token (else ZK_MEMORY_LLM_KEY; local servers need none)')
    .option('--llm-timeout <seconds>', `per-request timeout (else ZK_MEMORY_LLM_TIMEOUT; default ${LLM_DEFAULTS.timeoutSeconds})`)
    .option('--llm-max-tokens <n>', `room for the answer (else ZK_MEMORY_LLM_MAX_TOKENS; default ${LLM_DEFAULTS.maxTokens})`)
    .option('--llm-retries <n>', `retries on 429, 5xx and network errors (else ZK_MEMORY_LLM_RETRIES; default ${LLM_DEFAULTS.retries})`);
}

/** Add the embedding flags every command that searches or indexes vectors takes; their values land in `EmbedFlags`. */
export function addEmbedOptions(cmd: Command): Command {
  return cmd
    .option('--embed-base <url>', 'OpenAI-compatible embeddings server, with or without /v1 (else ZK_MEMORY_EMBED_BASE)')
    .option('--embed-model <id>', 'embedding model id (else ZK_MEMORY_EMBED_MODEL)')
    .option('--embed-key <key>', 'API key, sent as a bearer token (else ZK_MEMORY_EMBED_KEY; local servers need none)')
    .option('--embed-timeout <seconds>', `per-request timeout (else ZK_MEMORY_EMBED_TIMEOUT; default ${EMBED_DEFAULTS.timeoutSeconds})`)
    .option('--embed-batch <n>', `texts per request (else ZK_MEMORY_EMBED_BATCH; default ${EMBED_DEFAULTS.batchSize})`);
}
