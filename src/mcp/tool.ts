import type { FromSchema } from 'json-schema-to-ts';
import type { ArgsSchema, Operation, OperationCall } from '../operations/operation.js';
import type { ServerStatus } from '../api/results.js';
import type { Settings } from '../settings.js';

/** What a tool may be passed: an object of named arguments, each with its own schema, and no others. */
export type ToolSchema = ArgsSchema;

/** A tool's arguments as the server hands them over: checked against its input schema first. */
type Args = Record<string, unknown>;

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
  /** How the corpus's resident server stands, as the process that hosts the session asks it (src/server/status.ts). */
  serverStatus: ServerStatusOf;
}

/** How the resident server of a corpus stands: handed to a session by its host, since MCP sits below the server that serves it. */
export type ServerStatusOf = (root: string, settings: Settings) => Promise<ServerStatus>;

/** An MCP tool: what an agent is told, what it may pass, and the library call it makes. */
export interface ToolSpec<S extends ToolSchema = ToolSchema, A = Args> {
  name: string;
  description: string;
  inputSchema: S;
  /** Reads only: the protocol's read-only hint. */
  readOnly?: boolean;
  /** Only offered when an LLM is configured. */
  needsLlm?: boolean;
  /** What it writes comes from the agent: redacted first when ZK_MEMORY_REDACT is on (src/pipelines/redact.ts). */
  redacts?: boolean;
  /** Only offered when the corpus is in a git work tree. */
  needsGit?: boolean;
  /** `caller` is the session's client when the transport knows it (see `Caller`); `session`, the MCP session the call is made in. */
  run(root: string, args: A, caller: Caller | undefined, session: ToolSession): Promise<ToolAnswer>;
}

/**
 * A tool whose `run` takes its arguments typed as its input schema says: the schema is written once
 * and both the check of a call (src/mcp/server.ts) and the types of the arguments come from it.
 */
export function tool<const S extends ToolSchema>(spec: ToolSpec<S, NoInfer<FromSchema<S>>>): ToolSpec {
  // The server checks a call's arguments against this very schema before it runs the tool, so they
  // are what `FromSchema<S>` says by then.
  return spec as unknown as ToolSpec;
}

/** What an MCP session brings an operation: arguments named as its schema names them, no progress, no switches. */
const MCP_CALL: OperationCall = { argName: (key, quoted) => (quoted ? JSON.stringify(key) : key), switches: {} };

/** The MCP tool of an operation every surface renders (src/operations/): its arguments given as its schema names them, its defaults for an agent, and what it says beside its answer added to the text as notes. */
export function toolOf(op: Operation): ToolSpec {
  const { name, description, readOnly, needsLlm, redacts, needsGit } = op;
  return {
    name,
    description,
    readOnly,
    needsLlm,
    redacts,
    needsGit,
    inputSchema: op.args,
    async run(root, args) {
      const r = await op.run(root, { ...op.mcpDefaults, ...args }, MCP_CALL);
      const text = [r.text, ...(r.remarks ?? []).map((line) => `note: ${line}`)].join('\n');
      return { json: { ...r.json }, text, ...(r.failed ? { failed: true } : {}) };
    },
  };
}
