import type { Command } from 'commander';
import { action, corpusRoot } from '../cli/context.js';
import { addLlmOptions } from '../llm/options.js';
import type { LlmFlags } from '../llm/config.js';

const LLM_ENV: [keyof LlmFlags, string][] = [
  ['llmBase', 'ZK_MEMORY_LLM_BASE'], ['llmModel', 'ZK_MEMORY_LLM_MODEL'], ['llmKey', 'ZK_MEMORY_LLM_KEY'],
  ['llmTimeout', 'ZK_MEMORY_LLM_TIMEOUT'], ['llmMaxTokens', 'ZK_MEMORY_LLM_MAX_TOKENS'], ['llmRetries', 'ZK_MEMORY_LLM_RETRIES'],
];

export function register(program: Command): void {
  const cmd = program
    .command('mcp')
    .description('serve search, read, list, write, merge, integrate, retain, supersede and tend check as MCP tools on stdio');
  addLlmOptions(cmd).action(action(async (flags: LlmFlags) => {
    corpusRoot(); // fail now, with the usual message, rather than on every tool call
    // Tools run the same commands in-process; flags given here become their defaults.
    for (const [flag, env] of LLM_ENV) if (flags[flag] !== undefined) process.env[env] = String(flags[flag]);
    const { serveMcp } = await import('../mcp/server.js');
    await serveMcp();
    return { json: {}, text: '' };
  }));
}
