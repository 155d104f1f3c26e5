// The models' types are the ports' (src/ports.ts): kept here under the names the LLM code imports.
export type { ChatMessage, StructuredCallOptions, LlmFailureKind, StructuredLLM, Embedder } from '../ports.js';
