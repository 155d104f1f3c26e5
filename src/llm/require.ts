import { settings as currentSettings } from '../context.js';
import type { Settings } from '../settings.js';
import { llmConfig, requireLlmConfig } from './config.js';
import { chatCompletionsLlm } from './openai.js';
import type { StructuredLLM } from './types.js';

/** The configured model as a StructuredLLM, or the `llm_unconfigured` error (exit 3). */
export function requireLlm(s: Settings = currentSettings()): StructuredLLM {
  return chatCompletionsLlm(requireLlmConfig(s));
}

/** The configured model, or undefined when none is configured. */
export function configuredLlm(s: Settings = currentSettings()): StructuredLLM | undefined {
  const config = llmConfig(s);
  return config && chatCompletionsLlm(config);
}
