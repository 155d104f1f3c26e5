// The importable library. Its operations (src/api/) take an explicit corpus root and typed
// options, and answer the objects `--json` prints; the LLM and the embedder can be injected.
import * as api from './api/index.js';
import { callContext } from './compose.js';
import { hasContext, processIo, withContext } from './context.js';
import { Settings } from './settings.js';

/**
 * An operation run the way a program calling the library expects: in the caller's context when
 * there is one, else in a call of its own with the process's environment and every adapter wired
 * in (src/compose.ts).
 */
function wired<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args: A) => (hasContext() ? fn(...args) : withContext(callContext({ settings: new Settings(process.env), io: processIo }), () => fn(...args)));
}

export const init = wired(api.init);
export const write = wired(api.write);
export const merge = wired(api.merge);
export const read = wired(api.read);
export const list = wired(api.list);
export const supersede = wired(api.supersede);
export const archive = wired(api.archive);
export const overview = wired(api.overview);
export const inbox = wired(api.inbox);
export const inboxDismiss = wired(api.inboxDismiss);
export const inboxNext = wired(api.inboxNext);
export const search = wired(api.search);
export const index = wired(api.index);
export const indexStatus = wired(api.indexStatus);
export const status = wired(api.status);
export const tend = wired(api.tend);
export const integrate = wired(api.integrate);
export const retain = wired(api.retain);
export const retainDrain = wired(api.retainDrain);
export const split = wired(api.split);
export const splitCandidates = wired(api.splitCandidates);
export const tendWrites = wired(api.tendWrites);
export const ingestStart = wired(api.ingestStart);
export const ingestNext = wired(api.ingestNext);
export const ingestAccept = wired(api.ingestAccept);
export const ingestSkip = wired(api.ingestSkip);
export const ingestStatus = wired(api.ingestStatus);
export const createToken = wired(api.createToken);
export const listTokens = wired(api.listTokens);
export const revokeToken = wired(api.revokeToken);
export const sync = wired(api.sync);
export const importMemory = wired(api.importMemory);
export const exportMemory = wired(api.exportMemory);
export const context = wired(api.context);
export type * from './api/index.js';

export { ZkError, EXIT } from './errors.js';
export { prepareProcess } from './process.js';
export { Settings, type Env } from './settings.js';
export { withContext, type RunContext, type Io } from './context.js';
export { callContext } from './compose.js';
export type { StructuredLLM, ChatMessage, StructuredCallOptions } from './llm/types.js';
export type { Embedder } from './llm/embed.js';
export { chatCompletionsLlm } from './llm/openai.js';
export { openAiEmbedder } from './llm/embed.js';
export type { NoteInfo } from './corpus/note/notes.js';
export type { SearchHit } from './search/types.js';
