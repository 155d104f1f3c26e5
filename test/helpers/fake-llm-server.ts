import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage } from '../../src/llm/types.js';

export type Handler = (messages: ChatMessage[]) => unknown;

/** A scripted answer that is not a JSON object: sent as the function call's arguments verbatim. */
export class RawAnswer {
  constructor(readonly text: string) {}
}

/** A scripted refusal: the server answers with this status and body. */
export class HttpRefusal {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

export const notJson = (text: string) => new RawAnswer(text);
export const refuse = (status: number, body: unknown) => new HttpRefusal(status, body);

/**
 * A small OpenAI-compatible chat-completions server on 127.0.0.1 that answers each forced
 * function call with what the handler for that function returns (null answers with a 500, a
 * RawAnswer as unparsed arguments, an HttpRefusal with its status and body),
 * after `delayMs` when given (a slow model).
 */
export async function startFakeLlm(handlers: Record<string, Handler>, o: { delayMs?: number } = {}) {
  const calls: { name: string; messages: ChatMessage[] }[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
      const body = JSON.parse(raw || '{}');
      const name: string = body.tool_choice?.function?.name ?? body.tools?.[0]?.function?.name ?? '';
      calls.push({ name, messages: body.messages });
      const answer = handlers[name]?.(body.messages);
      if (answer instanceof HttpRefusal) {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
        return;
      }
      if (answer === null || answer === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'model crashed' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [
            {
              finish_reason: 'tool_calls',
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [{ id: 'c1', type: 'function', function: { name, arguments: answer instanceof RawAnswer ? answer.text : JSON.stringify(answer) } }],
              },
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    base,
    calls,
    env: { ZK_MEMORY_LLM_BASE: base, ZK_MEMORY_LLM_MODEL: 'fake-model', ZK_MEMORY_LLM_RETRIES: '0' },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A base URL on 127.0.0.1 where nothing listens (a port just given up), so connecting is refused. */
export async function closedBase(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}/v1`;
}
