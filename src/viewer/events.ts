import fs from 'node:fs';
import type http from 'node:http';

// Live updates for open pages (docs/viewer.md#live): one watch of the corpus folder for all of
// them; what changed is sent as a server-sent event `change` with the names, a moment after the
// last of a burst, so a page follows the corpus within a second or two.

const QUIET_MS = 150;
const KEEPALIVE_MS = 15_000;

export class ChangeFeed {
  private readonly clients = new Set<http.ServerResponse>();
  private watcher?: fs.FSWatcher;
  private pending = new Set<string>();
  private timer?: NodeJS.Timeout;
  private keepalive?: NodeJS.Timeout;

  constructor(private readonly root: string) {}

  size(): number {
    return this.clients.size;
  }

  subscribe(req: http.IncomingMessage, res: http.ServerResponse, headers: Record<string, string>): void {
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    this.clients.add(res);
    req.on('close', () => {
      this.clients.delete(res);
      if (!this.clients.size) this.stop();
    });
    this.start();
  }

  private start(): void {
    if (this.watcher) return;
    try {
      this.watcher = fs.watch(this.root, { persistent: false }, (_event, name) => this.heard(name ? String(name) : ''));
      this.watcher.on('error', () => this.stop());
    } catch {
      return; // no watch here: pages are still right when loaded
    }
    this.keepalive = setInterval(() => this.broadcast(': keep-alive\n\n'), KEEPALIVE_MS);
    this.keepalive.unref();
  }

  private heard(name: string): void {
    // Notes and the archive; not the tool's own files (an index refresh must not refresh every page).
    if (!/\.md$/i.test(name) && name !== '.archive' && name !== '') return;
    this.pending.add(name);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const paths = [...this.pending].filter(Boolean).sort();
      this.pending = new Set();
      this.broadcast(`event: change\ndata: ${JSON.stringify({ paths })}\n\n`);
    }, QUIET_MS);
  }

  private broadcast(text: string): void {
    for (const c of this.clients) c.write(text);
  }

  private stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    clearTimeout(this.timer);
    clearInterval(this.keepalive);
  }

  close(): void {
    for (const c of this.clients) c.end();
    this.clients.clear();
    this.stop();
  }
}
