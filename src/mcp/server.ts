import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ValidateFunction } from 'ajv';
import { runCaptured } from '../cli.js';
import { Scratch, TOOLS, type ToolSpec } from './tools.js';

function version(): string {
  const require = createRequire(import.meta.url);
  return (require('../../../package.json') as { version: string }).version;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<string, ValidateFunction>(TOOLS.map((t) => [t.name, ajv.compile(t.inputSchema)]));

function invalid(tool: ToolSpec, v: ValidateFunction) {
  const message = `invalid arguments for ${tool.name}: ${ajv.errorsText(v.errors, { dataVar: 'arguments' })}`;
  const json = { ok: false, error: { code: 'usage', message } };
  return { isError: true, content: [{ type: 'text', text: `error: ${message}` }], structuredContent: json };
}

/** Call one tool: validate, run the command it stands for, answer with its text and its JSON. */
export async function callTool(name: string, args: Record<string, unknown>) {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) {
    const message = `unknown tool: ${name}`;
    return { isError: true, content: [{ type: 'text', text: `error: ${message}` }], structuredContent: { ok: false, error: { code: 'usage', message } } };
  }
  const validate = validators.get(name)!;
  if (!validate(args)) return invalid(tool, validate);
  const scratch = new Scratch();
  try {
    const r = await runCaptured(tool.argv(args, scratch));
    const failed = r.json.ok === false;
    // Clients that do not read structured content still get the JSON, after the human text.
    const text = failed ? r.text : `${r.text || 'no results'}\n\n${JSON.stringify(r.json)}`;
    return { isError: failed, content: [{ type: 'text', text }], structuredContent: r.json };
  } finally {
    scratch.cleanup();
  }
}

/** Serve the tools over MCP on stdio until the client closes the connection. */
export async function serveMcp(): Promise<void> {
  const server = new Server({ name: 'zk-memory', version: version() }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => callTool(req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>));
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
