import { KINDS } from '../corpus/note/kinds.js';
type Args = Record<string, any>;

/** What a tool answers: the result object (as `--json` prints it) and its text for people. */
export interface ToolAnswer {
  json: Record<string, unknown>;
  text: string;
  /** The call could not do what was asked, though it answered (a partial retain). */
  failed?: boolean;
}

/** An MCP tool: what an agent is told, what it may pass, and the library call it makes. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Reads only: the protocol's read-only hint. */
  readOnly?: boolean;
  /** Only offered when an LLM is configured. */
  needsLlm?: boolean;
  /** What it writes comes from the agent: redacted first when ZK_MEMORY_REDACT is on (src/pipelines/redact.ts). */
  redacts?: boolean;
  /** Only offered when the corpus is in a git work tree. */
  needsGit?: boolean;
  run(root: string, args: Args): Promise<ToolAnswer>;
}

// The pieces every tool's input schema is made of.
export const str = (description: string) => ({ type: 'string', description });
export const bool = (description: string) => ({ type: 'boolean', description });
/** A note kind, as the corpus knows them (src/corpus/note/kinds.ts). */
export const kindProperty = (description?: string) => ({ type: 'string', enum: [...KINDS], ...(description ? { description } : {}) });

export function schema(properties: Record<string, unknown>, required: string[] = []) {
  return { type: 'object', properties, required, additionalProperties: false };
}
