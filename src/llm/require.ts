import { requireLlmConfig, type LlmFlags } from './config.js';
import { chatCompletionsLlm } from './openai.js';
import type { StructuredLLM } from './types.js';

/** The configured model as a StructuredLLM, or the `llm_unconfigured` error (exit 3). */
export function requireLlm(flags: LlmFlags = {}, env: Record<string, string | undefined> = process.env): StructuredLLM {
  return chatCompletionsLlm(requireLlmConfig(flags, env));
}
