export type { ChatMessage, StructuredCallOptions, StructuredLLM } from './types.js';
export { llmConfig, llmConfigured, requireLlmConfig, LLM_DEFAULTS, LLM_UNCONFIGURED, type LlmConfig, type LlmFlags } from './config.js';
export { addLlmOptions } from './options.js';
export { chatCompletionsLlm, chatCompletionsUrl } from './openai.js';
export { requireLlm } from './require.js';
export { parseJsonObject } from './parse.js';
