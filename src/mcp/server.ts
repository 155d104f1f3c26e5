import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, ListToolsRequestSchema, McpError, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { version } from '../version.js';
import { newCall, withContext, type RunContext } from '../context.js';
import { llmConfigured } from '../llm/config.js';
import { asZkError, bugStack, errorJson } from '../errors.js';
import { instructionsFor } from './instructions.js';
import { TOOLS, type ToolSpec } from './tools.js';
import crypto from 'node:crypto';
import type { Caller, ServerStatusOf, ToolSession } from './tool.js';
import { redactToolArgs } from '../api/redact.js';
import { LineTransport } from './transport.js';
import { indexLocation } from '../search/location.js';
import { residentState } from '../compose.js';
import { backgroundEmbedding } from '../search/background-embed.js';
import { gitWorkTree } from '../api/corpus.js';
import { schemaProblems, type SchemaProblem } from '../validate.js';

function toolError(message: string, code = 'usage') {
  return { isError: true, content: [{ type: 'text', text: `error: ${message}` }], structuredContent: { ok: false, error: { code, message } } };
}

/** The tools a session offers, named in an answer to a call that names none of them. */
const toolsHere = (offered: ToolSpec[]) => `the tools here: ${offered.map((t) => t.name).join(', ')}`;

/** A validation problem as an agent can act on it: the property it is about, and what is wrong. */
function problem(e: SchemaProblem): string {
  const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
  if (e.keyword === 'additionalProperties') return `${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)} is not allowed here`;
  if (e.keyword === 'required') return `${JSON.stringify((e.params as { missingProperty: string }).missingProperty)} is required`;
  if (e.keyword === 'enum') return `${at} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return `${at || 'arguments'} ${e.message}`;
}

function invalid(tool: ToolSpec, problems: SchemaProblem[]) {
  return toolError(`invalid arguments for ${tool.name}: ${problems.map(problem).join('; ')}`);
}

export type { Caller };

/**
 * Call one tool: validate its arguments, call the library in the server's context, answer text and
 * JSON, in `session`. `offered` are the tools the session lists, named to a caller that asks for an unknown one.
 */
export async function callTool(
  root: string,
  ctx: RunContext,
  session: ToolSession,
  name: string,
  args: Record<string, unknown>,
  caller?: Caller,
  offered: ToolSpec[] = TOOLS,
) {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) return toolError(`unknown tool: ${JSON.stringify(name)} (${toolsHere(offered)})`);
  // A JSON-RPC error, not a tool's answer: the client may not make this call at all.
  if (caller?.readOnly && !tool.readOnly)
    throw new McpError(ErrorCode.InvalidRequest, `forbidden: the token of ${caller.source} is read-only, and ${name} writes`);
  const problems = schemaProblems(tool.inputSchema, args);
  if (problems.length) return invalid(tool, problems);
  // The caller's name is the source of what it writes: a client could otherwise write as someone else.
  if (caller && 'source' in tool.inputSchema.properties) args = { ...args, source: caller.source };
  // A call of its own: what it remembers (the warnings it gave) ends with it.
  const call = newCall(ctx);
  // What a host's session writes is redacted before anything is written (docs/agents.md#privacy).
  if (tool.redacts && ctx.settings.redact()) args = withContext(call, () => redactToolArgs(root, name, args));
  try {
    // Every change made before the call reaches the watcher before the tool looks.
    await ctx.resident?.caughtUp();
    const r = await withContext(call, () => tool.run(root, args, caller, session));
    // The text is for people and the JSON for programs: each is sent once.
    return { isError: Boolean(r.failed), content: [{ type: 'text', text: r.text }], structuredContent: { ok: !r.failed, ...r.json } };
  } catch (err) {
    const e = asZkError(err);
    // A bug's stack is for whoever runs the server: stderr, never the protocol's stream.
    const stack = bugStack(err, ctx.settings.debug());
    if (stack) process.stderr.write(`${stack}\n`);
    return { isError: true, content: [{ type: 'text', text: `error: ${e.message}` }], structuredContent: errorJson(e) };
  }
}

/** The largest message accepted: room for the largest body, JSON-escaped, and then some. */
function maxMessageBytes(ctx: RunContext): number {
  return 2 * ctx.settings.maxBodyBytes() + 1024 * 1024;
}

/**
 * The tools a session offers: those that need an LLM only when one is configured (an agent never
 * calls a tool that can only park its input), `log` only on a corpus in git, and to a read-only
 * caller only the tools that read.
 */
async function offeredTools(root: string, ctx: RunContext, caller?: Caller): Promise<ToolSpec[]> {
  const llm = withContext(ctx, () => llmConfigured());
  const git = (await withContext(ctx, () => gitWorkTree(root))).work_tree;
  return TOOLS.filter((t) => (llm || !t.needsLlm) && (git || !t.needsGit) && (!caller?.readOnly || t.readOnly));
}

/** A JSON-RPC error answered with `message` as it is (an McpError would prefix its code to it). */
function rpcError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The name and arguments of a `tools/call`, or a one-line InvalidParams error naming what is
 * wrong and the tools there are (the SDK's own check would answer its schema dump, as an internal error).
 */
function callParams(params: unknown, offered: ToolSpec[]): { name: string; args: Record<string, unknown> } {
  const tools = toolsHere(offered);
  if (!isObject(params)) throw rpcError(ErrorCode.InvalidParams, `invalid tools/call: params must be an object {"name": TOOL, "arguments": {…}} (${tools})`);
  if (typeof params.name !== 'string' || !params.name) throw rpcError(ErrorCode.InvalidParams, `invalid tools/call: "name" must name a tool (${tools})`);
  if (params.arguments !== undefined && !isObject(params.arguments))
    throw rpcError(ErrorCode.InvalidParams, `invalid tools/call: "arguments" of ${params.name} must be an object`);
  return { name: params.name, args: params.arguments ?? {} };
}

/**
 * An MCP server of the tools for one session, not yet connected: every call runs in `ctx` (the
 * settings and flags the session was started with), as `caller` when the transport knows who calls;
 * `serverStatus` is how the process hosting it asks after the corpus's resident server, and
 * `inCall` tells it that a call is under way (the function it returns, that the call is over).
 */
export async function mcpSession(root: string, ctx: RunContext, serverStatus: ServerStatusOf, caller?: Caller, inCall?: () => () => void): Promise<Server> {
  const tools = await sessionTools(root, ctx, serverStatus, caller);
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: tools.instructions });
  server.setRequestHandler(ListToolsRequestSchema, async () => tools.list());
  server.fallbackRequestHandler = async (req: JSONRPCRequest) => {
    const over = inCall?.();
    try {
      return await tools.answer(req);
    } finally {
      over?.();
    }
  };
  return server;
}

export const SERVER_INFO = { name: 'zk-memory', version: version() };

/** What a session's MCP server answers, whichever SDK carries it (src/mcp/modern.ts serves the 2026-07-28 protocol with the same). */
export interface SessionTools {
  instructions: string;
  /** The answer to tools/list. */
  list(): { tools: { name: string; description: string; inputSchema: ToolSpec['inputSchema']; annotations: { readOnlyHint: boolean } }[] };
  /** The answer to any other request: tools/call, or method not found. */
  answer(req: { method: string; params?: unknown }): ReturnType<typeof callTool>;
}

/** The tools of one session (a new one unless `sessionId` names it), as `caller` may use them, every call in `ctx`. */
export async function sessionTools(root: string, ctx: RunContext, serverStatus: ServerStatusOf, caller?: Caller, sessionId?: string): Promise<SessionTools> {
  const offered = await offeredTools(root, ctx, caller);
  const session: ToolSession = { id: sessionId ?? crypto.randomUUID().replace(/-/g, ''), serverStatus };
  return {
    instructions: instructionsFor(offered.map((t) => t.name)),
    list: () => ({
      tools: offered.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { readOnlyHint: Boolean(t.readOnly) },
      })),
    }),
    // tools/call is answered here rather than through a handler the SDK checks first, so a call
    // without a tool's name gets a sentence saying so; every other unknown method is not found.
    async answer(req) {
      if (req.method !== 'tools/call') throw rpcError(ErrorCode.MethodNotFound, `method not found: ${req.method}`);
      const { name, args } = callParams(req.params, offered);
      return callTool(root, ctx, session, name, args, caller, offered);
    },
  };
}

/** The context a session's calls run in: `ctx` with the resident state, and an output that never touches the protocol's. */
export function sessionContext(ctx: RunContext, resident: NonNullable<RunContext['resident']>): RunContext {
  // Warnings of tool calls go to stderr, and nothing a tool does reads stdin or writes stdout: both may carry the protocol.
  return { ...ctx, resident, audience: 'mcp', io: { ...ctx.io, stdin: () => undefined, stdout: (t) => ctx.io.stderr(t) } };
}

/**
 * Serve the tools over MCP on stdio (or on `streams`, a resident server's connection, which it
 * tells of each call under way: see `mcpSession`) until the client closes the connection. Every
 * call runs in `ctx` (the settings and flags the session was started with); the output carries
 * JSON-RPC only.
 */
export async function serveMcp(
  root: string,
  ctx: RunContext,
  serverStatus: ServerStatusOf,
  streams?: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; inCall?: () => () => void },
): Promise<void> {
  // The search index stays open and the root watched between calls (the watcher only where it
  // sees every change: not on a network file system, whose other hosts write unseen). A resident
  // server hands every session its resident state, which outlives the session.
  const shared = ctx.resident;
  const own = shared
    ? undefined
    : residentState(
        root,
        withContext(ctx, () => indexLocation(root).fileSystem === null),
      );
  const server = await mcpSession(root, sessionContext(ctx, shared ?? own!), serverStatus, undefined, streams?.inCall);
  // Without a resident server, the session embeds new notes in the background itself (src/search/background-embed.ts).
  const embedding = own && backgroundEmbedding(root, { inCall: (job) => withContext(sessionContext(ctx, own), job) });
  const transport = new LineTransport(streams?.input ?? process.stdin, streams?.output ?? process.stdout, maxMessageBytes(ctx));
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  try {
    await server.connect(transport);
    await closed;
  } finally {
    embedding?.close();
    own?.close();
  }
}
