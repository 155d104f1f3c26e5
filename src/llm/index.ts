export type { ChatMessage, LlmFailureKind, StructuredCallOptions, StructuredLLM } from './types.js';
export { llmConfig, llmConfigured, requireLlmConfig, LLM_DEFAULTS, LLM_UNCONFIGURED, type LlmConfig, type LlmFlags } from './config.js';
export { embedConfig, EMBED_DEFAULTS, type EmbedConfig, type EmbedFlags } from './config.js';
export { addLlmOptions, addEmbedOptions } from './options.js';
export { openAiEmbedder, configuredEmbedder, embeddingsUrl, type Embedder } from './embed.js';
export { chatCompletionsLlm, chatCompletionsUrl } from './openai.js';
export { requireLlm } from './require.js';
export { parseJsonObject } from './parse.js';
