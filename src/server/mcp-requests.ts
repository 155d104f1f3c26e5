import crypto from 'node:crypto';
import type http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { tokenHolder, type TokenInfo } from '../api/tokens.js';
import { mcpSession, type Caller } from '../mcp/server.js';
import { answerModern, isModernRequest, modernHandler } from '../mcp/modern.js';
import { withContext, type RunContext } from '../context.js';
import { serverStatus } from './status.js';

// The requests MCP over HTTP answers (docs/http.md), checked in the order src/server/http.ts
// describes: Host, Origin, OAuth's own paths, the path, the bearer token and the corpus it opens,
// then the session, or a request of the 2026-07-28 protocol that stands alone, or a new session.

/** A corpus the HTTP server reaches by name: its root and the context its sessions run in (none: the server's own). */
export interface CorpusRoute {
  root: string;
  ctx?: RunContext;
}

/** OAuth's endpoints, once the server listens (its issuer names the bound port unless a public address is given). */
export interface OAuthEndpoints {
  issuer: URL;
  app: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

interface Session {
  /** The corpus the session was opened on: it is used at that path only. */
  root: string;
  transport: StreamableHTTPServerTransport;
  caller: Caller;
  /** The sha256 of the token that opened the session: only it may use the session. */
  token: Buffer;
  lastUsed: number;
}

/** Who asks, and of which corpus: the corpus at the request's path and the token's holder there. */
interface Authorized {
  target: { root: string; ctx: RunContext };
  holder: TokenInfo;
  token: string;
}

const PLAIN_BEARER = { 'www-authenticate': 'Bearer realm="zk-memory"' };

/** The paths OAuth answers (the SDK's auth router, and the consent page's form). */
const isOAuthPath = (p: string) => ['/authorize', '/token', '/register', '/revoke', '/consent'].includes(p) || p.startsWith('/.well-known/oauth-');
/** One answer for a corpus not served and one the token does not open: nothing says which. */
const NO_CORPUS = 'not found: no corpus at this path';

/** The session a token's 2026-07-28 requests are counted in: derived from the token, and not its kept hash. */
const statelessSession = (token: string) => `token${crypto.createHash('sha256').update(`stateless session\0${token}`, 'utf8').digest('hex').slice(0, 24)}`;

const hashOf = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest();

/** The MCP requests of one HTTP server: `root` at /mcp, the registered `corpora` at /mcp/NAME. */
export class McpRequests {
  /** The Host header values a request may carry (set once the server listens). */
  hosts = new Set<string>();
  oauth: OAuthEndpoints | undefined;
  private readonly sessions = new Map<string, Session>();
  private readonly modern = modernHandler();

  constructor(
    private readonly root: string,
    private readonly ctx: RunContext,
    private readonly o: { origins: Set<string>; ingestFolders: string[]; corpora?: ReadonlyMap<string, CorpusRoute> },
  ) {}

  /** Answer one request; a failure is the server's, said on its stderr, never the client's to read. */
  async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      await this.handle(req, res);
    } catch (err) {
      // The reason goes to the server's own stderr: the client may not even hold a token.
      this.ctx.io.stderr(`error: an HTTP request failed: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!res.headersSent) refuse(res, 500, 'internal error: the server could not answer this request (its log says why)');
      else res.destroy();
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!this.hosts.has(String(req.headers.host ?? '').toLowerCase()))
      return refuse(res, 403, `forbidden: Host ${JSON.stringify(req.headers.host ?? '')} is not a name this server is reached by`);
    const origin = req.headers.origin;
    const pathname = new URL(req.url ?? '/', 'http://any').pathname;
    if (this.oauth && isOAuthPath(pathname)) {
      // The consent page posts from the server's own origin; the other endpoints are called by clients, which send none.
      if (origin !== undefined && !this.o.origins.has(origin) && origin !== this.oauth.issuer.origin) return refuse(res, 403, forbiddenOrigin(origin));
      this.oauth.app(req, res);
      return;
    }
    if (origin !== undefined && !this.o.origins.has(origin)) return refuse(res, 403, forbiddenOrigin(origin));
    const path = /^\/mcp(?:\/([^/]+))?$/.exec(pathname);
    if (!path) return refuse(res, 404, 'not found: MCP is served at /mcp and /mcp/NAME');
    const asker = this.authorized(req, res, pathname, path[1]);
    if (!asker) return;
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') return this.inSession(req, res, id, asker);
    return this.unbound(req, res, asker);
  }

  /** The corpus at the path and the token's holder there, or undefined once refused. */
  private authorized(req: http.IncomingMessage, res: http.ServerResponse, pathname: string, name: string | undefined): Authorized | undefined {
    // With OAuth, a client without a token is told where to get one (RFC 9728).
    const bearer = this.oauth
      ? {
          'www-authenticate': `Bearer realm="zk-memory", resource_metadata="${new URL(`.well-known/oauth-protected-resource${pathname}`, this.oauth.issuer).href}"`,
        }
      : PLAIN_BEARER;
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return void refuse(res, 401, 'unauthorized: send "Authorization: Bearer TOKEN" (zk-memory token create NAME)', bearer);
    const target = name === undefined ? { root: this.root, ctx: this.ctx } : this.routeOf(name);
    const holder = target && withContext(target.ctx, () => tokenHolder(target.root, token));
    if (target && holder) return { target, holder, token };
    // A token that opens some corpus here, but not this one, learns only that there is none for it at this path.
    const served = [this.root, ...[...(this.o.corpora?.values() ?? [])].map((r) => r.root)];
    if (withContext(this.ctx, () => served.some((r) => tokenHolder(r, token)))) return void refuse(res, 404, NO_CORPUS);
    return void refuse(res, 401, 'unauthorized: the token is not known (revoked, or never made here)', bearer);
  }

  /** The corpus served as `name` (decoded from the path), with the context its sessions run in. */
  private routeOf(name: string): { root: string; ctx: RunContext } | undefined {
    let decoded: string;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      return undefined;
    }
    const route = this.o.corpora?.get(decoded);
    return route && { root: route.root, ctx: route.ctx ?? this.ctx };
  }

  /** A request of a session: only at its corpus's path, with the token that opened it, and the token's rights as they are now. */
  private inSession(req: http.IncomingMessage, res: http.ServerResponse, id: string, { target, holder, token }: Authorized): Promise<void> | void {
    const session = this.sessions.get(id);
    if (!session || session.root !== target.root) return refuse(res, 404, 'session not found: initialize a new one');
    if (!crypto.timingSafeEqual(hashOf(token), session.token)) return refuse(res, 403, 'forbidden: the session was opened with another token');
    session.caller.source = holder.name;
    session.caller.readOnly = holder.read_only;
    session.lastUsed = performance.now();
    return session.transport.handleRequest(req, res);
  }

  /** Without a session: a request of the 2026-07-28 protocol, which stands alone, or an older client's initialize. */
  private async unbound(req: http.IncomingMessage, res: http.ServerResponse, { target, holder, token }: Authorized): Promise<void> {
    const caller: Caller = { source: holder.name, readOnly: holder.read_only, ingestFolders: this.o.ingestFolders };
    let parsedBody: unknown;
    if (req.method === 'POST') {
      const body = await readBody(req, MAX_BODY_BYTES);
      if (body === undefined) return refuse(res, 413, `payload too large: a request body is at most ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
      try {
        parsedBody = JSON.parse(body.toString('utf8'));
      } catch {
        return refuse(res, 400, 'parse error: the body is not JSON', {}, PARSE_ERROR);
      }
      const request = webRequest(req, body, res);
      if (await isModernRequest(request, parsedBody))
        return sendResponse(
          res,
          await answerModern(this.modern, request, parsedBody, token, {
            root: target.root,
            ctx: target.ctx,
            caller,
            session: statelessSession(token),
            serverStatus,
          }),
        );
    }
    // A new session (an initialize request), or a request the transport refuses for want of one.
    const tokenHash = hashOf(token);
    const server = await mcpSession(target.root, target.ctx, serverStatus, caller);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // Each answer is an event stream that ends with it. The SDK's JSON answers (1.32) keep every
      // answer of a session until the session ends: memory that grows with every call.
      enableJsonResponse: false,
      onsessioninitialized: (sid) => void this.sessions.set(sid, { root: target.root, transport, caller, token: tokenHash, lastUsed: performance.now() }),
      onsessionclosed: (sid) => void this.sessions.delete(sid),
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsedBody);
    if (!transport.sessionId || !this.sessions.has(transport.sessionId)) await server.close();
  }

  /** Close the sessions left without a request for `idleMs`: their clients have gone without saying. */
  sweep(idleMs: number): void {
    for (const [sid, s] of this.sessions) if (performance.now() - s.lastUsed > idleMs) void s.transport.close().then(() => this.sessions.delete(sid));
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) await s.transport.close().catch(() => undefined);
    await this.modern.close().catch(() => undefined);
    this.sessions.clear();
  }
}

const forbiddenOrigin = (origin: string) => `forbidden: Origin ${JSON.stringify(origin)} is not allowed (serve --allow-origin adds one)`;

/** A refusal as MCP clients read one: a JSON-RPC error in a JSON body. */
function refuse(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = -32001): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/** The JSON-RPC code of a body that is not JSON. */
const PARSE_ERROR = -32700;
/** The largest request body read (as the SDK's session transport bounds its own). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * A request's body, or undefined when it passes `limit` bytes: the rest is read and dropped, so the
 * answer reaches a client still sending (the server's request timeout bounds how long).
 */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.once('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** The web request the SDK's v2 entry reads: the same method, URL, headers and body; aborted when the client goes. */
function webRequest(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headersDistinct)) for (const v of value ?? []) headers.append(name, v);
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), {
    method: req.method,
    headers,
    body: new Uint8Array(body),
    signal: gone.signal,
  });
}

/** Write a web response out on a Node one, streaming its body. */
async function sendResponse(res: http.ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}
