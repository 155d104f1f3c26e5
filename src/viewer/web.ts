import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { newCall, withContext, type RunContext } from '../context.js';
import { asZkError, bugStack, ZkError } from '../errors.js';
import { liveNote } from '../api/browse.js';
import type { ServerState } from '../api/results.js';
import { ViewerAccess } from './access.js';
import { esc, layout } from './html.js';
import { archivedPage, notePage } from './note-page.js';
import { graphPage, healthPage, recentPage, searchAnswer, searchPage } from './pages.js';
import { graphAnswer } from './graph-data.js';
import { ChangeFeed } from './events.js';
import { packageDir } from '../version.js';

// The viewer (docs/viewer.md): read-only pages of the corpus, served by its resident server on
// 127.0.0.1. Every request is checked before anything is read: its Host (DNS rebinding), its
// Origin (another site's page), its method (GET and HEAD only), then its session cookie.

export interface Viewer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** A launch link, good once. */
  launchUrl(): string;
  /** Open live-update streams: the server is not idle while someone looks. */
  watching(): number;
  close(): Promise<void>;
}

/** No inline script or style, nothing from elsewhere, no framing. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const SECURITY = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const ASSETS: Record<string, string> = { 'viewer.js': 'text/javascript; charset=utf-8', 'viewer.css': 'text/css; charset=utf-8' };

interface Asset {
  body: Buffer;
  etag: string;
}

/**
 * The browser assets of `dir`, each read once and tagged with a digest of its bytes: a page
 * opened again revalidates them (304, no body), and the browser reuses the script it compiled.
 */
function assetFiles(dir: string): (name: string) => Asset {
  const kept = new Map<string, Asset>();
  return (name) => {
    let a = kept.get(name);
    if (!a) {
      const body = fs.readFileSync(path.join(dir, name));
      kept.set(name, (a = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }));
    }
    return a;
  };
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, head: boolean, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(head ? undefined : body);
}

function messagePage(title: string, text: string): string {
  return layout({ title, page: 'message', main: `<h1>${esc(title)}</h1><p>${esc(text)}</p>` });
}

const HTML = 'text/html; charset=utf-8';

/** A request that failed: a usage error (a bad parameter) is the asker's, 400 with what was wrong; a missing note 404; anything else the server's, 500. */
function failed(ctx: RunContext, req: http.IncomingMessage, res: http.ServerResponse, err: unknown): void {
  const e = asZkError(err);
  const head = req.method === 'HEAD';
  if (res.headersSent) return void res.destroy();
  if (e.code === 'usage') {
    if (new URL(req.url ?? '/', 'http://viewer').pathname.startsWith('/api/')) {
      return send(res, 400, 'application/json; charset=utf-8', JSON.stringify({ ok: false, error: { code: e.code, message: e.message } }), head);
    }
    return send(res, 400, HTML, messagePage('Not understood', e.message), head);
  }
  if (e.code === 'not_found' || e.code === 'invalid_ref' || e.code === 'ambiguous_ref') return send(res, 404, HTML, messagePage('Not found', e.message), head);
  ctx.io.stderr(`error: a viewer request failed: ${err instanceof Error ? err.message : String(err)}\n`);
  const stack = bugStack(err, ctx.settings.debug());
  if (stack) ctx.io.stderr(`${stack}\n`);
  send(res, 500, HTML, messagePage('Something failed', 'The server could not show this page; its log says why.'), head);
}

/** Serve the viewer of `root` on 127.0.0.1 (a free port); pages are read in calls of `ctx`. */
export async function listenViewer(root: string, ctx: RunContext, state: () => ServerState): Promise<Viewer> {
  // Made once the port is known, before the first request is taken.
  let access!: ViewerAccess;
  // The browser assets `npm run build` made.
  const asset = assetFiles(path.join(packageDir() ?? '.', 'dist', 'web'));
  const feed = new ChangeFeed(root);
  let hosts = new Set<string>();
  let origins = new Set<string>();

  const html = (res: http.ServerResponse, status: number, body: string, head: boolean, headers: Record<string, string> = {}) =>
    send(res, status, 'text/html; charset=utf-8', body, head, headers);
  const json = (res: http.ServerResponse, body: unknown, head: boolean) => send(res, 200, 'application/json; charset=utf-8', JSON.stringify(body), head);

  async function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL, head: boolean): Promise<void> {
    const p = url.pathname;
    const q = (name: string) => url.searchParams.get(name) ?? '';
    const file = (prefix: string) => noteName(p.slice(prefix.length));
    if (p === '/' || p === '/search') return html(res, 200, await searchPage(root, q('q'), q('backend') || undefined), head);
    if (p.startsWith('/note/')) return html(res, 200, await notePage(root, file('/note/')), head);
    if (p.startsWith('/archived/')) return html(res, 200, archivedPage(root, file('/archived/')), head);
    if (p === '/recent') return html(res, 200, recentPage(root, { source: q('source') || undefined, kind: q('kind') || undefined }), head);
    if (p === '/health') return html(res, 200, await healthPage(root, state()), head);
    if (p === '/graph') {
      const center = graphCenter(root, q('note'));
      const hops = hopsOf(q('hops'));
      return html(res, 200, graphPage(center, hops, graphAnswer(root, center?.path, hops)), head);
    }
    if (p === '/api/search') return json(res, await searchAnswer(root, q('q'), q('backend') || undefined), head);
    if (p === '/events') return feed.subscribe(req, res, SECURITY);
    html(res, 404, messagePage('Not found', `Nothing is at ${p}.`), head);
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const head = req.method === 'HEAD';
    if (!hosts.has(String(req.headers.host ?? '').toLowerCase()))
      return send(res, 403, 'text/plain; charset=utf-8', "forbidden: this Host is not the viewer's\n", head);
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) return send(res, 403, 'text/plain; charset=utf-8', 'forbidden: a page of another site\n', head);
    if (req.method !== 'GET' && !head)
      return send(res, 405, 'text/plain; charset=utf-8', 'the viewer only reads: GET and HEAD\n', false, { allow: 'GET, HEAD' });
    const url = new URL(req.url ?? '/', 'http://viewer');
    const launch = url.searchParams.get('launch');
    if (launch !== null) {
      const session = access.open(launch);
      if (!session)
        return html(
          res,
          401,
          messagePage('This link is spent', 'A launch link opens the viewer once and for five minutes. Run zk-memory view again for a new one.'),
          head,
        );
      url.searchParams.delete('launch');
      const to = `${url.pathname === '/' ? '/search' : url.pathname}${url.search}`;
      return send(res, 303, 'text/plain; charset=utf-8', '', head, { location: to, 'set-cookie': access.cookie(session) });
    }
    if (url.pathname.startsWith('/assets/')) {
      const name = url.pathname.slice('/assets/'.length);
      if (!Object.hasOwn(ASSETS, name)) return send(res, 404, 'text/plain; charset=utf-8', 'no such asset\n', head);
      const { body, etag } = asset(name);
      const cache = { 'cache-control': 'no-cache', etag };
      if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { ...SECURITY, ...cache }).end();
      return send(res, 200, ASSETS[name], body, head, cache);
    }
    if (!access.admits(req.headers.cookie))
      return html(res, 401, messagePage('Open the viewer from its link', 'Run zk-memory view: it prints a link that lets this browser in.'), head);
    await withContext(newCall(ctx), async () => {
      // Every change made before the request is seen by the pages it reads (docs/server.md).
      await ctx.resident?.caughtUp();
      await route(req, res, url, head);
    });
  }

  const server = http.createServer({ headersTimeout: 30_000, requestTimeout: 60_000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => failed(ctx, req, res, err));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  access = new ViewerAccess(port, root);
  hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    launchUrl: () => `${url}/?launch=${access.launch()}`,
    watching: () => feed.size(),
    async close() {
      feed.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The note a graph is drawn around, when one is named and is a note of the root. */
function graphCenter(root: string, name: string): { path: string; title: string } | undefined {
  if (!name) return undefined;
  const n = liveNote(root, name);
  if (!n) throw new ZkError('not_found', `no note ${name}`);
  return n;
}

/** A note's name from its address, `%`-escapes decoded; one that does not decode is the asker's mistake. */
function noteName(escaped: string): string {
  try {
    return decodeURIComponent(escaped);
  } catch {
    throw new ZkError('usage', `the note's name in the address is not valid %-encoding: ${JSON.stringify(escaped.slice(0, 60))}`);
  }
}

/** How many links out a graph reaches: 2 unless asked, 1 to 4. */
function hopsOf(text: string): number {
  const n = Number(text || 2);
  if (!Number.isInteger(n) || n < 1 || n > 4) throw new ZkError('usage', `hops must be a whole number from 1 to 4, not ${JSON.stringify(text.slice(0, 20))}`);
  return n;
}
