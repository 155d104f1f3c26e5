import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import { ZkError } from '../errors.js';
import type { RunContext } from '../context.js';
import { McpRequests, type CorpusRoute, type OAuthEndpoints } from './mcp-requests.js';

export type { CorpusRoute };

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

/** How long an idle connection is kept for the client's next request. */
const KEEP_ALIVE_MS = 65_000;

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
  if (o.oauth && o.publicUrl === undefined && !o.tlsCert && host !== '127.0.0.1' && host !== 'localhost')
    throw new ZkError('usage', '--oauth needs --public-url https://… (the address clients reach the server by), or --tls-cert, or 127.0.0.1');
  if (o.publicUrl !== undefined) publicAddress(o.publicUrl);
  const tls = o.tlsCert && o.tlsKey ? { cert: readTlsFile(o.tlsCert), key: readTlsFile(o.tlsKey) } : undefined;
  const requestMs = ctx.settings.httpRequestSeconds() * 1000;
  const headersMs = Math.min(requestMs, ctx.settings.httpHeadersSeconds() * 1000);
  const options: http.ServerOptions = {
    // A client that stalls in its headers or its body is cut off; the others are served meanwhile.
    // Node looks for such clients every interval: a short one keeps the cut close to the limit.
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(100, headersMs / 4)),
    // An idle connection is kept long past a client's pause: one the server closes just as the
    // client sends on it fails that call (ECONNRESET), and with Node's 5 s a busy client met it.
    // Clients close their idle connections first, at the time this header tells them.
    keepAliveTimeout: KEEP_ALIVE_MS,
  };
  const requests = new McpRequests(root, ctx, { origins: new Set(o.allowOrigins ?? []), ingestFolders: o.ingestFrom ?? [], corpora: o.corpora });
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => void requests.answer(req, res);
  const web = tls ? https.createServer({ ...options, ...tls }, listener) : http.createServer(options, listener);
  // Held connections cost the server a file each: past a bound, its own files (notes, the index,
  // the local commands it answers) would fail to open.
  web.maxConnections = ctx.settings.httpMaxConnections();
  capPerAddress(web, ctx.settings.httpMaxConnectionsPerAddress());
  await new Promise<void>((resolve, reject) => {
    web.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ZkError(
          err.code === 'EADDRINUSE' ? 'busy' : 'io',
          `cannot serve HTTP on ${o.listen}: ${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message}`,
        ),
      ),
    );
    web.listen(port, host, () => resolve());
  });
  const bound = (web.address() as net.AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  const publicUrl = o.publicUrl === undefined ? undefined : publicAddress(o.publicUrl);
  requests.hosts = allowedHosts(host, bound, [...(o.allowHosts ?? []), ...(publicUrl ? [publicUrl.host] : [])]);
  if (o.oauth) requests.oauth = await oauthFor(root, o, publicUrl ?? new URL(`${tls ? 'https' : 'http'}://${shown}:${bound}/`), ctx);
  const sweep = setInterval(() => requests.sweep(SESSION_IDLE_MS), 60_000);
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
      await requests.close();
    },
  };
}

/** OAuth for the server reached at `issuer`: the consent page offers each corpus once, the server's own by its name when it has one. */
async function oauthFor(root: string, o: HttpOptions, issuer: URL, ctx: RunContext): Promise<OAuthEndpoints> {
  const { oauthApp } = await import('./oauth.js');
  const corpora = () => {
    const named = [...(o.corpora ?? [])];
    const own = named.find(([, route]) => route.root === root)?.[0];
    const offered = [{ key: own ?? '.', label: `${own ?? root} (at /mcp${own ? ` and /mcp/${own}` : ''})`, root }];
    for (const [name, route] of named) if (route.root !== root) offered.push({ key: name, label: `${name} (at /mcp/${name})`, root: route.root });
    return offered;
  };
  return { issuer, app: oauthApp({ issuer, corpora, codeTtlMs: ctx.settings.oauthCodeMs(), log: (line) => ctx.io.stderr(line) }) };
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
  if (url.protocol !== 'https:' && !isLoopback(url.hostname.replace(/^\[|\]$/g, '')))
    throw new ZkError('usage', '--public-url must be https (OAuth clients refuse a plain-HTTP issuer)');
  return url;
}

function readTlsFile(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new ZkError('usage', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
