import type { EndpointConfig, LlmConfig } from './config.js';
import { postJson, transientStatus, type PostOptions, type PostOutcome } from './http.js';
import { parseJsonObject } from './parse.js';
import type { ChatMessage, LlmFailureKind, StructuredCallOptions, StructuredLLM } from './types.js';

/** The URL of an endpoint (`chat/completions`, `embeddings`) under a base given with or without its version segment. */
export function openAiUrl(base: string, endpoint: string): string {
  const b = base.trim().replace(/\/+$/, '');
  if (b.endsWith(`/${endpoint}`)) return b;
  return /\/v\d+[a-z0-9]*$/i.test(b) ? `${b}/${endpoint}` : `${b}/v1/${endpoint}`;
}

/** The chat-completions endpoint of a base URL given with or without its version segment. */
export function chatCompletionsUrl(base: string): string {
  return openAiUrl(base, 'chat/completions');
}

/** How every call to an endpoint is posted: JSON, the key as a bearer token, the endpoint's timeout and retries. */
export function endpointPostOptions(config: EndpointConfig): PostOptions {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (config.key) headers.authorization = `Bearer ${config.key}`;
  return {
    headers,
    timeoutMs: config.timeoutMs,
    retries: config.retries,
    backoffMs: config.backoffMs,
    maxRetryAfterMs: config.maxRetryAfterMs,
    sleep: config.sleep,
  };
}

/** How one protocol step ended. `unsupported` means: ask again in JSON mode. */
type Step = { answer: Record<string, unknown> } | { failure: string; kind?: LlmFailureKind } | { unsupported: string; sticky: boolean };

/** Statuses a server answers when it does not do tools (llama.cpp without templates says 500). */
const TOOL_REJECTION = new Set([400, 404, 422, 500, 501]);
const MENTIONS_TOOLS = /\btools?\b|tool_choice|function/i;
const MENTIONS_JSON_MODE = /response_format|json_object|json mode/i;

function snippet(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 200 ? `${one.slice(0, 200)}…` : one;
}

function afterAttempts(attempts: number): string {
  return attempts > 1 ? ` after ${attempts} attempts` : '';
}

function httpFailure(out: { status: number; text: string; attempts: number }): string {
  return `HTTP ${out.status}${afterAttempts(out.attempts)}: ${snippet(out.text) || '(empty body)'}`;
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * Why a post has no usable answer, in one line; `endpoint` names what was called (`LLM endpoint
 * <url>`). An endpoint that cannot be used at all is the `unreachable` kind, for callers to stop at.
 */
function postFailure(out: PostOutcome, endpoint: string): { failure: string; kind?: 'unreachable' } {
  if (out.unreachable) {
    const body = 'text' in out ? snippet(out.text) : '';
    return { failure: `${endpoint} unreachable: ${out.unreachable}${body ? `: ${body}` : ''}`, kind: 'unreachable' };
  }
  if ('error' in out) return { failure: `${out.error}${afterAttempts(out.attempts)}` };
  return { failure: httpFailure(out) };
}

/** The body of a successful post, or why it failed (no response, or a status outside 2xx) in one line. */
export function postResult(out: PostOutcome, endpoint: string): { text: string } | { failure: string; kind?: 'unreachable' } {
  return 'error' in out || !isSuccess(out.status) ? postFailure(out, endpoint) : { text: out.text };
}

/** What an OpenAI-compatible server answers, as far as it is read here: each field is checked before it is used. */
export interface AnswerBody {
  error?: unknown;
  choices?: unknown;
  data?: unknown;
}

/** A successful answer's JSON body, or why it is not one (not JSON, or an `error` object). */
export function readAnswer(text: string): { body: AnswerBody } | { failure: string } {
  let body: AnswerBody | null;
  try {
    body = JSON.parse(text);
  } catch {
    return { failure: `server answered with something that is not JSON: ${snippet(text)}` };
  }
  if (body?.error) return { failure: `server error: ${snippet(typeof body.error === 'string' ? body.error : JSON.stringify(body.error))}` };
  return { body: body ?? {} };
}

interface Completion {
  message: Record<string, unknown>;
  finish?: string;
}

/** The first choice of a chat-completions body, or why there is none. */
function readCompletion(text: string): Completion | { failure: string } {
  const read = readAnswer(text);
  if ('failure' in read) return read;
  const body = read.body;
  const choice = Array.isArray(body?.choices) ? body.choices[0] : undefined;
  if (!choice || typeof choice.message !== 'object' || choice.message === null) {
    return { failure: `response has no message: ${snippet(text)}` };
  }
  return { message: choice.message, finish: typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined };
}

/** The text of a message whose content may be a string or a list of parts. */
function contentText(message: Record<string, unknown>): string {
  const c = message.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

/** A tool call as a chat completion's message names it; any part may be missing. */
interface ToolCall {
  function?: { name?: unknown; arguments?: unknown };
}

/** The arguments of the forced call (or of the legacy `function_call`), undefined when absent. */
function toolArguments(message: Record<string, unknown>, name: string): unknown {
  const calls: ToolCall[] = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const call = calls.find((c) => c?.function?.name === name) ?? calls[0];
  return call?.function?.arguments ?? (message.function_call as ToolCall['function'])?.arguments;
}

function truncatedHint(c: Completion, maxTokens: number): string {
  return c.finish === 'length' ? ` (cut off at max_tokens ${maxTokens}; raise --llm-max-tokens)` : '';
}

/** The instruction that replaces the function definition when the server has no tools. */
function schemaInstruction(o: StructuredCallOptions): string {
  const what = o.description ? ` (${o.description})` : '';
  return [
    `Answer by recording ${o.name}${what}: reply with exactly one JSON object and nothing else.`,
    'The object must conform to this JSON Schema:',
    JSON.stringify(o.schema),
  ].join('\n');
}

function withSchemaInstruction(messages: ChatMessage[], o: StructuredCallOptions): ChatMessage[] {
  const instruction = schemaInstruction(o);
  if (messages[0]?.role === 'system') {
    return [{ role: 'system', content: `${messages[0].content}\n\n${instruction}` }, ...messages.slice(1)];
  }
  return [{ role: 'system', content: instruction }, ...messages];
}

/**
 * A StructuredLLM over an OpenAI-compatible chat-completions server: a forced function call with
 * the schema as parameters; JSON mode with the schema in the prompt when the server has no tools.
 */
export function chatCompletionsLlm(config: LlmConfig): StructuredLLM {
  const url = chatCompletionsUrl(config.base);
  const endpoint = `LLM endpoint ${url}`;
  const postOptions = endpointPostOptions(config);
  // Once a server has refused tools, later calls go straight to JSON mode.
  let toolsRefused = false;

  const post = (payload: Record<string, unknown>, retryable?: (status: number, text: string) => boolean): Promise<PostOutcome> =>
    postJson(url, { model: config.model, temperature: 0, max_tokens: config.maxTokens, ...payload }, { ...postOptions, retryable });

  async function viaTools(messages: ChatMessage[], o: StructuredCallOptions): Promise<Step> {
    const tool = { type: 'function', function: { name: o.name, description: o.description ?? o.name, parameters: o.schema } };
    // A refusal of tools is an answer, not a hiccup: never retry it, even when dressed as a 500.
    const retryable = (status: number, text: string) => transientStatus(status) && !MENTIONS_TOOLS.test(text);
    const out = await post({ messages, tools: [tool], tool_choice: { type: 'function', function: { name: o.name } } }, retryable);
    if ('error' in out || out.unreachable) return postFailure(out, endpoint);
    if (!isSuccess(out.status)) {
      if (TOOL_REJECTION.has(out.status) && MENTIONS_TOOLS.test(out.text)) return { unsupported: httpFailure(out), sticky: true };
      return { failure: httpFailure(out) };
    }
    const c = readCompletion(out.text);
    if ('failure' in c) return c;
    const args = toolArguments(c.message, o.name);
    if (args !== undefined && args !== null) {
      const answer = typeof args === 'string' ? parseJsonObject(args) : args;
      if (answer && typeof answer === 'object' && !Array.isArray(answer)) return { answer: answer as Record<string, unknown> };
      return {
        kind: 'unparseable',
        failure: `tool call arguments are not a JSON object${truncatedHint(c, config.maxTokens)}: ${snippet(String(typeof args === 'string' ? args : JSON.stringify(args)))}`,
      };
    }
    // Some servers ignore tools but answer the object in plain content.
    const fromContent = parseJsonObject(contentText(c.message));
    if (fromContent) return { answer: fromContent };
    return { unsupported: 'answered without calling the function', sticky: false };
  }

  async function viaJsonMode(messages: ChatMessage[], o: StructuredCallOptions): Promise<Step> {
    const prompt = withSchemaInstruction(messages, o);
    let out = await post({ messages: prompt, response_format: { type: 'json_object' } });
    // Servers without JSON mode still follow the schema in the prompt.
    if (!('error' in out) && !out.unreachable && out.status >= 400 && out.status < 500 && MENTIONS_JSON_MODE.test(out.text)) {
      out = await post({ messages: prompt });
    }
    const result = postResult(out, endpoint);
    if ('failure' in result) return result;
    const c = readCompletion(result.text);
    if ('failure' in c) return c;
    const text = contentText(c.message);
    const answer = parseJsonObject(text);
    if (answer) return { answer };
    return { kind: 'unparseable', failure: `answer is not a JSON object${truncatedHint(c, config.maxTokens)}: ${snippet(text) || '(empty)'}` };
  }

  async function call(messages: ChatMessage[], o: StructuredCallOptions): Promise<Record<string, unknown> | null> {
    const fail = (reason: string, kind: LlmFailureKind = 'transport') => {
      o.onFailure?.(reason, kind);
      return null;
    };
    try {
      if (!toolsRefused) {
        const step = await viaTools(messages, o);
        if ('answer' in step) return step.answer;
        if ('failure' in step) return fail(step.failure, step.kind);
        if (step.sticky) toolsRefused = true;
      }
      const step = await viaJsonMode(messages, o);
      if ('answer' in step) return step.answer;
      return 'failure' in step ? fail(step.failure, step.kind) : fail(step.unsupported);
    } catch (err) {
      return fail(`LLM adapter error: ${String((err as Error)?.message ?? err).split('\n')[0]}`);
    }
  }

  return Object.assign(call, { model: config.model });
}
