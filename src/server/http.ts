import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ZkError } from '../errors.js';
import { tokenHolder } from '../api/tokens.js';
import { mcpSession, type Caller } from '../mcp/server.js';
import { answerModern, isModernRequest, modernHandler } from '../mcp/modern.js';
import { withContext, type RunContext } from '../context.js';
import { serverStatus } from './status.js';

// MCP over HTTP (docs/http.md): the SDK's streamable HTTP transport behind the checks the MCP
// specification asks of a server reachable by others. Every request is checked in this order,
// and refused before any tool runs: its Host (DNS rebinding), its Origin (a web page), its bearer
// token (read again each time, so a revoked token is refused at once, and the rights a call runs
// with are the token's as they are now), whether the token opens the corpus at the path (`/mcp`,
// the server's own; `/mcp/NAME`, a registered one: the same 404 for a corpus it does not open as
// for none), then its session (bound to its corpus, and to the token that opened it, by its hash:
// no other token's, even one made later under the same name). The transport itself
// refuses bodies over 4 MiB (413) and bodies that are not JSON (-32700). Connections are capped in
// all and per address, and one that stalls in its headers or body is cut off.

export interface HttpOptions {
  /** `[HOST:]PORT`, as given to `serve --http`. */
  listen: string;
  allowRemote?: boolean;
  /** Origins a browser's request may come from; none by default (MCP clients send none). */
  allowOrigins?: string[];
  /** Host names clients may reach the server by besides the bound address (a reverse proxy's). */
  allowHosts?: string[];
  tlsCert?: string;
  tlsKey?: string;
  /** Folders `ingest_start` may read sources from (`--ingest-from`); none by default. */
  ingestFrom?: string[];
  /** The corpora served at /mcp/NAME besides the server's own at /mcp, looked up for each request. */
  corpora?: ReadonlyMap<string, CorpusRoute>;
  /** Serve OAuth 2.1 for clients that need it (docs/http.md#oauth). */
  oauth?: boolean;
  /** The address clients reach the server by (`https://memory.example.net`), when not its own: a proxy's or a tunnel's. */
  publicUrl?: string;
}

/** A corpus the HTTP server reaches by name: its root and the context its sessions run in (none: the server's own). */
export interface CorpusRoute {
  root: string;
  ctx?: RunContext;
}

export interface RunningHttp {
  url: string;
  /** Stop accepting, let calls under way finish (for a while), then end every connection. */
  close(): Promise<void>;
}

/** A session left without a request this long is closed: its client has gone without saying. */
const SESSION_IDLE_MS = 30 * 60_000;
/** How long a closing server waits for calls under way. */
const DRAIN_MS = 10_000;

/** Host and port of `[HOST:]PORT` (an IPv6 host in brackets). */
export function parseListen(spec: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(spec);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new ZkError('usage', `--http takes [HOST:]PORT (127.0.0.1:8765, 8765, [::1]:8765), not ${JSON.stringify(spec)}`);
  return { host: (m[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (net.isIPv4(host) && host.startsWith('127.'));
}

const WILDCARD = new Set(['0.0.0.0', '::']);

/** The Host header values a request may carry: the names this server is reached by, with its port. */
function allowedHosts(host: string, port: number, extra: string[]): Set<string> {
  const names = new Set([host, ...extra]);
  if (isLoopback(host)) for (const n of ['localhost', '127.0.0.1', '::1']) names.add(n);
  if (WILDCARD.has(host)) {
    names.add(os.hostname());
    for (const addrs of Object.values(os.networkInterfaces())) for (const a of addrs ?? []) names.add(a.address);
    for (const n of ['localhost', '127.0.0.1', '::1']) names.add(n);
  }
  const out = new Set<string>();
  for (const n of names) {
    const shown = n.includes(':') ? `[${n}]` : n;
    out.add(`${shown}:${port}`.toLowerCase());
    if (extra.includes(n)) out.add(shown.toLowerCase()); // a proxy's public name, on its default port
  }
  return out;
}

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
  return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), { method: req.method, headers, body: new Uint8Array(body), signal: gone.signal });
}

/** Write a web response out on a Node one, streaming its body. */
async function sendResponse(res: http.ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
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

const PLAIN_BEARER = { 'www-authenticate': 'Bearer realm="zk-memory"' };

/** The paths OAuth answers (the SDK's auth router, and the consent page's form). */
const isOAuthPath = (p: string) => ['/authorize', '/token', '/register', '/revoke', '/consent'].includes(p) || p.startsWith('/.well-known/oauth-');
/** One answer for a corpus not served and one the token does not open: nothing says which. */
const NO_CORPUS = 'not found: no corpus at this path';

/** The session a token's 2026-07-28 requests are counted in: derived from the token, and not its kept hash. */
const statelessSession = (token: string) => `token${crypto.createHash('sha256').update(`stateless session\0${token}`, 'utf8').digest('hex').slice(0, 24)}`;

const hashOf = (token: string) => crypto.createHash('sha256').update(token, 'utf8').digest();

/**
 * Keep at most `perAddress` connections from one address: one more is closed as it comes, before
 * it may send anything. (The cap on all connections is the server's own `maxConnections`.)
 */
function capPerAddress(web: net.Server, perAddress: number): void {
  const open = new Map<string, number>();
  web.on('connection', (socket: net.Socket) => {
    const address = socket.remoteAddress ?? '';
    const n = open.get(address) ?? 0;
    if (n >= perAddress) {
      socket.destroy();
      return;
    }
    open.set(address, n + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/**
 * Serve MCP at `/mcp` over HTTP (HTTPS with a certificate) for `root`; every session's calls run
 * in `ctx`, as the holder of the token that opened it.
 */
export async function listenHttp(root: string, o: HttpOptions, ctx: RunContext): Promise<RunningHttp> {
  const { host, port } = parseListen(o.listen);
  if (!isLoopback(host) && !o.allowRemote) {
    throw new ZkError('usage', `${host} is not a loopback address: add --allow-remote to serve other machines (every request still needs a token)`);
  }
  if (Boolean(o.tlsCert) !== Boolean(o.tlsKey)) throw new ZkError('usage', '--tls-cert and --tls-key go together');
  // OAuth clients take only an https issuer, or a plain-HTTP one on this host.
  if (o.oauth && o.publicUrl === undefined && !o.tlsCert && host !== '127.0.0.1' && host !== 'localhost') throw new ZkError('usage', '--oauth needs --public-url https://… (the address clients reach the server by), or --tls-cert, or 127.0.0.1');
  if (o.publicUrl !== undefined) publicAddress(o.publicUrl);
  const tls = o.tlsCert && o.tlsKey ? { cert: readTlsFile(o.tlsCert), key: readTlsFile(o.tlsKey) } : undefined;
  const origins = new Set(o.allowOrigins ?? []);
  const sessions = new Map<string, Session>();
  const requestMs = ctx.settings.httpRequestSeconds() * 1000;
  const headersMs = Math.min(requestMs, ctx.settings.httpHeadersSeconds() * 1000);
  const options: http.ServerOptions = {
    // A client that stalls in its headers or its body is cut off; the others are served meanwhile.
    // Node looks for such clients every interval: a short one keeps the cut close to the limit.
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(100, headersMs / 4)),
  };
  const ingestFolders = o.ingestFrom ?? [];
  let hosts = new Set<string>();
  /** The corpus served as `name` (decoded from the path), with the context its sessions run in. */
  const routeOf = (name: string): { root: string; ctx: RunContext } | undefined => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      return undefined;
    }
    const route = o.corpora?.get(decoded);
    return route && { root: route.root, ctx: route.ctx ?? ctx };
  };
  const modern = modernHandler();
  /** OAuth, once the server listens (its issuer names the bound port unless a public address is given). */
  let oauth: { issuer: URL; app: (req: http.IncomingMessage, res: http.ServerResponse) => void } | undefined;
  const servedRoots = () => [root, ...[...(o.corpora?.values() ?? [])].map((r) => r.root)];

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!hosts.has(String(req.headers.host ?? '').toLowerCase())) return refuse(res, 403, `forbidden: Host ${JSON.stringify(req.headers.host ?? '')} is not a name this server is reached by`);
    const origin = req.headers.origin;
    const pathname = new URL(req.url ?? '/', 'http://any').pathname;
    if (oauth && isOAuthPath(pathname)) {
      // The consent page posts from the server's own origin; the other endpoints are called by clients, which send none.
      if (origin !== undefined && !origins.has(origin) && origin !== oauth.issuer.origin) return refuse(res, 403, `forbidden: Origin ${JSON.stringify(origin)} is not allowed (serve --allow-origin adds one)`);
      oauth.app(req, res);
      return;
    }
    if (origin !== undefined && !origins.has(origin)) return refuse(res, 403, `forbidden: Origin ${JSON.stringify(origin)} is not allowed (serve --allow-origin adds one)`);
    const path = /^\/mcp(?:\/([^/]+))?$/.exec(pathname);
    if (!path) return refuse(res, 404, 'not found: MCP is served at /mcp and /mcp/NAME');
    // With OAuth, a client without a token is told where to get one (RFC 9728).
    const BEARER = oauth ? { 'www-authenticate': `Bearer realm="zk-memory", resource_metadata="${new URL(`.well-known/oauth-protected-resource${pathname}`, oauth.issuer).href}"` } : PLAIN_BEARER;
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return refuse(res, 401, 'unauthorized: send "Authorization: Bearer TOKEN" (zk-memory token create NAME)', BEARER);
    const target = path[1] === undefined ? { root, ctx } : routeOf(path[1]);
    const holder = target && withContext(target.ctx, () => tokenHolder(target.root, token));
    if (!holder) {
      // A token that opens some corpus here, but not this one, learns only that there is none for it at this path.
      if (withContext(ctx, () => servedRoots().some((r) => tokenHolder(r, token)))) return refuse(res, 404, NO_CORPUS);
      return refuse(res, 401, 'unauthorized: the token is not known (revoked, or never made here)', BEARER);
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (!session || session.root !== target.root) return refuse(res, 404, 'session not found: initialize a new one');
      if (!crypto.timingSafeEqual(hashOf(token), session.token)) return refuse(res, 403, 'forbidden: the session was opened with another token');
      // The token's rights as they are now, not as they were when the session began.
      session.caller.source = holder.name;
      session.caller.readOnly = holder.read_only;
      session.lastUsed = performance.now();
      return session.transport.handleRequest(req, res);
    }
    const caller: Caller = { source: holder.name, readOnly: holder.read_only, ingestFolders };
    // Without a session: a request of the 2026-07-28 protocol, which stands alone, or an older client's initialize.
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
      if (await isModernRequest(request, parsedBody)) return sendResponse(res, await answerModern(modern, request, parsedBody, token, { root: target.root, ctx: target.ctx, caller, session: statelessSession(token), serverStatus }));
    }
    // A new session (an initialize request), or a request the transport refuses for want of one.
    const tokenHash = hashOf(token);
    const server = await mcpSession(target.root, target.ctx, serverStatus, caller);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // Each answer is an event stream that ends with it. The SDK's JSON answers (1.32) keep every
      // answer of a session until the session ends: memory that grows with every call.
      enableJsonResponse: false,
      onsessioninitialized: (sid) => void sessions.set(sid, { root: target.root, transport, caller, token: tokenHash, lastUsed: performance.now() }),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsedBody);
    if (!transport.sessionId || !sessions.has(transport.sessionId)) await server.close();
  }

  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      // The reason goes to the server's own stderr: the client may not even hold a token.
      ctx.io.stderr(`error: an HTTP request failed: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!res.headersSent) refuse(res, 500, 'internal error: the server could not answer this request (its log says why)');
      else res.destroy();
    });
  };
  const web = tls ? https.createServer({ ...options, ...tls }, listener) : http.createServer(options, listener);
  // Held connections cost the server a file each: past a bound, its own files (notes, the index,
  // the local commands it answers) would fail to open.
  web.maxConnections = ctx.settings.httpMaxConnections();
  capPerAddress(web, ctx.settings.httpMaxConnectionsPerAddress());
  await new Promise<void>((resolve, reject) => {
    web.once('error', (err: NodeJS.ErrnoException) =>
      reject(new ZkError(err.code === 'EADDRINUSE' ? 'busy' : 'io', `cannot serve HTTP on ${o.listen}: ${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message}`)));
    web.listen(port, host, () => resolve());
  });
  const bound = (web.address() as net.AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  const publicUrl = o.publicUrl === undefined ? undefined : publicAddress(o.publicUrl);
  hosts = allowedHosts(host, bound, [...(o.allowHosts ?? []), ...(publicUrl ? [publicUrl.host] : [])]);
  if (o.oauth) {
    const issuer = publicUrl ?? new URL(`${tls ? 'https' : 'http'}://${shown}:${bound}/`);
    const { oauthApp } = await import('./oauth.js');
    // The consent page offers each corpus once: the server's own by its name when it has one.
    const corpora = () => {
      const named = [...(o.corpora ?? [])];
      const own = named.find(([, route]) => route.root === root)?.[0];
      const offered = [{ key: own ?? '.', label: `${own ?? root} (at /mcp${own ? ` and /mcp/${own}` : ''})`, root }];
      for (const [name, route] of named) if (route.root !== root) offered.push({ key: name, label: `${name} (at /mcp/${name})`, root: route.root });
      return offered;
    };
    oauth = { issuer, app: oauthApp({ issuer, corpora, codeTtlMs: ctx.settings.oauthCodeMs(), log: (line) => ctx.io.stderr(line) }) };
  }
  const sweep = setInterval(() => {
    for (const [sid, s] of sessions) if (performance.now() - s.lastUsed > SESSION_IDLE_MS) void s.transport.close().then(() => sessions.delete(sid));
  }, 60_000);
  sweep.unref();
  return {
    url: `${tls ? 'https' : 'http'}://${shown}:${bound}/mcp`,
    async close() {
      clearInterval(sweep);
      const closed = new Promise<void>((resolve) => web.close(() => resolve()));
      // A connection whose call finishes goes idle (kept alive for the client's next request): end it then.
      const idle = setInterval(() => web.closeIdleConnections(), 50);
      web.closeIdleConnections();
      const drained = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), DRAIN_MS).unref())]);
      clearInterval(idle);
      if (!drained) web.closeAllConnections();
      for (const s of sessions.values()) await s.transport.close().catch(() => undefined);
      await modern.close().catch(() => undefined);
      sessions.clear();
    },
  };
}

/** The public address `--public-url` gives: an origin with no path, https unless on loopback. */
function publicAddress(spec: string): URL {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw new ZkError('usage', `--public-url takes a URL (https://memory.example.net), not ${JSON.stringify(spec)}`);
  }
  if (url.pathname !== '/' || url.search || url.hash) throw new ZkError('usage', `--public-url takes the server's address with no path: ${url.origin}`);
  if (url.protocol !== 'https:' && !isLoopback(url.hostname.replace(/^\[|\]$/g, ''))) throw new ZkError('usage', '--public-url must be https (OAuth clients refuse a plain-HTTP issuer)');
  return url;
}

function readTlsFile(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new ZkError('usage', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
