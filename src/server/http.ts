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
import type { RunContext } from '../context.js';
import { serverStatus } from './status.js';

// MCP over HTTP (docs/http.md): the SDK's streamable HTTP transport behind the checks the MCP
// specification asks of a server reachable by others. Every request is checked in this order,
// and refused before any tool runs: its Host (DNS rebinding), its Origin (a web page), its bearer
// token (read again each time, so a revoked token is refused at once, and the rights a call runs
// with are the token's as they are now), then its session (bound to the token that opened it, by
// its hash: no other token's, even one made later under the same name). The transport itself
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
function refuse(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message } }));
}

interface Session {
  transport: StreamableHTTPServerTransport;
  caller: Caller;
  /** The sha256 of the token that opened the session: only it may use the session. */
  token: Buffer;
  lastUsed: number;
}

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

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!hosts.has(String(req.headers.host ?? '').toLowerCase())) return refuse(res, 403, `forbidden: Host ${JSON.stringify(req.headers.host ?? '')} is not a name this server is reached by`);
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) return refuse(res, 403, `forbidden: Origin ${JSON.stringify(origin)} is not allowed (serve --allow-origin adds one)`);
    if (new URL(req.url ?? '/', 'http://any').pathname !== '/mcp') return refuse(res, 404, 'not found: MCP is served at /mcp');
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    const holder = token === undefined ? undefined : tokenHolder(root, token);
    if (token === undefined || !holder) return refuse(res, 401, token === undefined ? 'unauthorized: send "Authorization: Bearer TOKEN" (zk-memory token create NAME)' : 'unauthorized: the token is not known (revoked, or never made here)', { 'www-authenticate': 'Bearer realm="zk-memory"' });
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (!session) return refuse(res, 404, 'session not found: initialize a new one');
      if (!crypto.timingSafeEqual(hashOf(token), session.token)) return refuse(res, 403, 'forbidden: the session was opened with another token');
      // The token's rights as they are now, not as they were when the session began.
      session.caller.source = holder.name;
      session.caller.readOnly = holder.read_only;
      session.lastUsed = performance.now();
      return session.transport.handleRequest(req, res);
    }
    // A new session (an initialize request), or a request the transport refuses for want of one.
    const caller: Caller = { source: holder.name, readOnly: holder.read_only, ingestFolders };
    const tokenHash = hashOf(token);
    const server = await mcpSession(root, ctx, serverStatus, caller);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // Each answer is an event stream that ends with it. The SDK's JSON answers (1.32) keep every
      // answer of a session until the session ends: memory that grows with every call.
      enableJsonResponse: false,
      onsessioninitialized: (sid) => void sessions.set(sid, { transport, caller, token: tokenHash, lastUsed: performance.now() }),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
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
  hosts = allowedHosts(host, bound, o.allowHosts ?? []);
  const sweep = setInterval(() => {
    for (const [sid, s] of sessions) if (performance.now() - s.lastUsed > SESSION_IDLE_MS) void s.transport.close().then(() => sessions.delete(sid));
  }, 60_000);
  sweep.unref();
  const shown = host.includes(':') ? `[${host}]` : host;
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
      sessions.clear();
    },
  };
}

function readTlsFile(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new ZkError('usage', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
