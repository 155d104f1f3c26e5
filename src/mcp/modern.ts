import { createMcpHandler, isLegacyRequest, Server, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { RunContext } from '../context.js';
import type { Caller, ServerStatusOf } from './tool.js';
import { SERVER_INFO, sessionTools } from './server.js';

// The 2026-07-28 protocol (docs/http.md#the-2026-07-28-protocol): every request stands alone,
// with no `initialize` and no session; the protocol version and the client's capabilities come
// in the request's `_meta`, and the `Mcp-Method` and `Mcp-Name` headers must name what the body
// does. The SDK's v2 entry answers these requests, checks the headers against the body (a
// mismatch is refused before any tool runs) and serves each with a server made for it from the
// same tools as a session. Requests of the older protocol are not its: the caller routes them
// (isModernRequest) to the session transport, so older clients keep their sessions.

/** Who a request is for: the corpus, the context its calls run in, and the token holder's rights. */
export interface ModernCall {
  root: string;
  ctx: RunContext;
  caller: Caller;
  /**
   * The session its tools count it in (letters and digits): one per token, so what a session
   * holds from call to call (the inbox input `inbox_next` took) stays the token's across requests.
   */
  session: string;
  /** How the process serving it asks after the corpus's resident server (src/server/status.ts). */
  serverStatus: ServerStatusOf;
}

/** Whether a POST (as a web request, with its body parsed when it is JSON) is of the 2026-07-28 protocol. */
export async function isModernRequest(request: Request, parsedBody: unknown): Promise<boolean> {
  return !(await isLegacyRequest(request, parsedBody));
}

/** The handler of 2026-07-28 requests; each is answered for the call its `authInfo.extra.call` names. */
export function modernHandler(): McpHttpHandler {
  return createMcpHandler(
    async ({ authInfo }) => {
      const call = authInfo?.extra?.call as ModernCall;
      const tools = await sessionTools(call.root, call.ctx, call.serverStatus, call.caller, call.session);
      const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: tools.instructions });
      server.setRequestHandler('tools/list', async () => tools.list() as never);
      server.fallbackRequestHandler = async (req) => (await tools.answer(req)) as never;
      return server;
    },
    { legacy: 'reject' },
  );
}

/** Answer a 2026-07-28 request for `call`: `token` is the bearer the server checked, passed on, never looked at again. */
export function answerModern(handler: McpHttpHandler, request: Request, parsedBody: unknown, token: string, call: ModernCall): Promise<Response> {
  return handler.fetch(request, {
    parsedBody,
    authInfo: { token, clientId: call.caller.source, scopes: call.caller.readOnly ? ['read'] : ['read', 'write'], extra: { call } },
  });
}
