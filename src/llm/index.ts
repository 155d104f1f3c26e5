export type { ChatMessage, LlmFailureKind, StructuredCallOptions, StructuredLLM } from './types.js';
export { llmConfig, llmConfigured, requireLlmConfig, LLM_DEFAULTS, llmUnconfigured, type LlmConfig } from './config.js';
export { embedConfig, EMBED_DEFAULTS, type EmbedConfig } from './config.js';
export { openAiEmbedder, configuredEmbedder, embeddingsUrl, type Embedder } from './embed.js';
export { chatCompletionsLlm, chatCompletionsUrl } from './openai.js';
export { requireLlm, configuredLlm } from './require.js';
export { parseJsonObject } from './parse.js';
