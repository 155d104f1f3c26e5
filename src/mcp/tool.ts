import { KINDS } from '../corpus/note/kinds.js';
type Args = Record<string, any>;

/** What a tool answers: the result object (as `--json` prints it) and its text for people. */
export interface ToolAnswer {
  json: Record<string, unknown>;
  text: string;
  /** The call could not do what was asked, though it answered (a partial retain). */
  failed?: boolean;
}

/**
 * Who a session's client is, when the transport says (MCP over HTTP, by its token): what it
 * writes carries `source`, whatever it passes; a read-only client sees and calls only the tools
 * that read; and it studies only documents under `ingestFolders` or given as text. A session
 * without one is the local owner's (stdio), which may read any file the process can.
 */
export interface Caller {
  source: string;
  readOnly: boolean;
  /** The folders `ingest_start` may read sources from (none: text given with the call only). */
  ingestFolders: string[];
}

/**
 * The MCP session a call is made in: what a session holds (the inbox input it took) is its own,
 * also where one resident server answers many sessions in one process.
 */
export interface ToolSession {
  /** Letters and digits, unique to the session. */
  id: string;
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
  /** `caller` is the session's client when the transport knows it (see `Caller`); `session`, the MCP session the call is made in. */
  run(root: string, args: Args, caller?: Caller, session?: ToolSession): Promise<ToolAnswer>;
}

// The pieces every tool's input schema is made of.
export const str = (description: string) => ({ type: 'string', description });
export const bool = (description: string) => ({ type: 'boolean', description });
/** A note kind, as the corpus knows them (src/corpus/note/kinds.ts). */
export const kindProperty = (description?: string) => ({ type: 'string', enum: [...KINDS], ...(description ? { description } : {}) });

export function schema(properties: Record<string, unknown>, required: string[] = []) {
  return { type: 'object', properties, required, additionalProperties: false };
}
