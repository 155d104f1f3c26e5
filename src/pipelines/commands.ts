import { ZkError } from '../errors.js';
import { fileArg, type CommandResult } from '../cli/context.js';
import { noteInfo } from '../corpus/notes.js';
import { defaultSource } from '../corpus/ops.js';
import { llmConfig, LLM_UNCONFIGURED, type LlmFlags } from '../llm/config.js';
import { requireLlm } from '../llm/require.js';
import { configuredBackend } from '../search/index.js';
import { spool } from './inbox.js';
import { integrate, toCandidate, type IntegrateInput } from './integrate.js';
import { drain, retain, type RetainInput, type RetainReport, type RetainResultRow } from './retain.js';

// What the integrate and retain commands do between parsing flags and printing: shared by the
// CLI and the MCP server, so both validate, answer and fail the same way.

export interface IntegrateFlags extends LlmFlags, Omit<IntegrateInput, 'content'> {
  source?: string;
  backend?: string;
}

export async function integrateCommand(root: string, content: string, flags: IntegrateFlags): Promise<CommandResult> {
  const candidate = toCandidate({ ...flags, content });
  const backend = configuredBackend(flags.backend);
  const source = defaultSource(flags.source);
  if (!llmConfig(flags)) {
    const spooled = spool(root, [{ type: 'candidate', candidate }], { source, reason: 'no LLM configured' });
    throw new ZkError('llm_unconfigured', `${LLM_UNCONFIGURED} (kept in ${spooled} for retain --drain)`, { spooled });
  }
  try {
    const r = await integrate(root, candidate, { llm: requireLlm(flags), backend, source });
    const target = r.target ? { target: noteInfo(r.target) } : {};
    const verb = r.action === 'created' ? 'created' : r.action === 'merged' ? 'merged into' : `superseded ${r.target?.path} with`;
    return { json: { action: r.action, note: noteInfo(r.note), ...target, reason: r.reason }, text: `${verb} ${r.note.path}` };
  } catch (err) {
    if (!(err instanceof ZkError) || err.code !== 'llm_failed') throw err;
    const spooled = spool(root, [{ type: 'candidate', candidate }], { source, reason: err.message });
    throw new ZkError('llm_failed', `${err.message} (kept in ${spooled} for retain --drain)`, { spooled });
  }
}

function parseMessages(text: string, file: string): RetainInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ZkError('usage', `--messages ${file}: not JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const list = Array.isArray(value) ? value : (value as { messages?: unknown })?.messages;
  if (!Array.isArray(list) || !list.every((m) => m && typeof m === 'object' && typeof (m as { role?: unknown }).role === 'string')) {
    throw new ZkError('usage', `--messages ${file}: expected a JSON array of {role, content} messages`);
  }
  return { messages: list };
}

export interface RetainFlags extends LlmFlags {
  messages?: string;
  transcript?: string;
  source?: string;
  backend?: string;
  drain?: boolean;
}

function retainInput(user: string | undefined, assistant: string | undefined, flags: RetainFlags): RetainInput {
  const given = [user !== undefined, flags.messages !== undefined, flags.transcript !== undefined].filter(Boolean).length;
  if (given !== 1) throw new ZkError('usage', 'retain takes one input: USER ASSISTANT, --messages FILE or --transcript FILE');
  if (flags.messages !== undefined) return parseMessages(fileArg(flags.messages), flags.messages);
  if (flags.transcript !== undefined) return { transcript: fileArg(flags.transcript) };
  if (assistant === undefined) throw new ZkError('usage', 'retain USER ASSISTANT needs both what the user said and the answer');
  return { turn: { user: user!, assistant } };
}

function rowLine(r: RetainResultRow): string {
  const where = r.action === 'merged' ? `merged into ${r.note?.path}` : r.action === 'superseded' ? `${r.note?.path} supersedes ${r.target?.path}` : `created ${r.note?.path}`;
  return `${where}  (${r.kind}: ${r.title})`;
}

function retainResult(r: RetainReport): CommandResult {
  const text = r.results.length ? r.results.map(rowLine).join('\n') : r.spooled ? '' : 'nothing worth keeping';
  if (!r.spooled) return { json: { results: r.results, spooled: null }, text };
  const message = `${r.failure ?? 'the LLM failed'}; input kept in ${r.spooled} (retry with retain --drain)`;
  process.stderr.write(`error: ${message}\n`);
  return {
    ok: false,
    exitCode: 3,
    json: { error: { code: r.failure === LLM_UNCONFIGURED ? 'llm_unconfigured' : 'llm_failed', message }, results: r.results, spooled: r.spooled },
    text,
  };
}

export async function retainCommand(root: string, user: string | undefined, assistant: string | undefined, flags: RetainFlags): Promise<CommandResult> {
  const backend = configuredBackend(flags.backend);
  const source = defaultSource(flags.source);
  if (flags.drain) {
    if (user !== undefined || flags.messages !== undefined || flags.transcript !== undefined) {
      throw new ZkError('usage', 'retain --drain takes no other input');
    }
    const llm = requireLlm(flags);
    const d = await drain(root, { llm, backend, source });
    const text = [...d.results.map(rowLine), `drained ${d.done} item(s) from ${d.files} inbox file(s); ${d.kept} kept for later`].join('\n');
    return { ok: d.kept === 0, json: { results: d.results, drained: d.done, kept: d.kept, files: d.files }, text, exitCode: d.kept ? 3 : 0 };
  }
  const input = retainInput(user, assistant, flags);
  const configured = llmConfig(flags);
  const r = await retain(root, input, configured ? { llm: requireLlm(flags), backend, source } : { unavailable: LLM_UNCONFIGURED, backend, source });
  return retainResult(r);
}

