import net from 'node:net';
import { MAX_REQUEST_BYTES, readLines, type Request } from './protocol.js';

/** How long a client may take to send its first line once connected: a half line does not hold the server. */
export const FIRST_LINE_MS = 5000;
/** Connections that have not said what they want yet, at most; more are closed at once. */
export const MAX_WAITING_CONNECTIONS = 32;
/** Connections at once, at most (calls under way and MCP sessions among them). */
export const MAX_CONNECTIONS = 256;

/**
 * The server's socket side: it takes connections, cuts off those that say nothing in time or more
 * than a request holds, and hands each one's first line, parsed, to `onRequest`. What the
 * connection carries after that line is the request's own (a call's answer, an MCP session).
 */
export class Connections {
  readonly server: net.Server;
  private readonly open = new Set<net.Socket>();
  /** Connections that have not sent their first line yet. */
  private waiting = 0;

  constructor(onRequest: (socket: net.Socket, req: Request) => void, onClosed: () => void) {
    this.server = net.createServer((socket) => this.accept(socket, onRequest, onClosed));
    this.server.maxConnections = MAX_CONNECTIONS;
  }

  /** Connections open now (calls under way, MCP sessions, first lines awaited). */
  get size(): number {
    return this.open.size;
  }

  /** Stop listening and cut every connection. */
  close(): void {
    this.server.close();
    for (const s of this.open) s.destroy();
  }

  private accept(socket: net.Socket, onRequest: (socket: net.Socket, req: Request) => void, onClosed: () => void): void {
    if (this.waiting >= MAX_WAITING_CONNECTIONS) {
      socket.destroy();
      return;
    }
    this.open.add(socket);
    this.waiting++;
    let heard = false;
    const spoke = () => {
      if (heard) return;
      heard = true;
      this.waiting--;
      clearTimeout(firstLine);
    };
    // A timer that fires after the event loop was held (a long check) first lets the data that
    // arrived meanwhile be read: only a client that really sent no whole line is cut off.
    const firstLine = setTimeout(() => setImmediate(() => heard || socket.destroy()), FIRST_LINE_MS);
    socket.on('close', () => {
      spoke();
      this.open.delete(socket);
      onClosed();
    });
    socket.on('error', () => socket.destroy());
    readLines(socket, MAX_REQUEST_BYTES, (line) => {
      spoke();
      const req = parseRequest(line);
      if (req) onRequest(socket, req);
      else socket.destroy();
      return false;
    });
  }
}

/** A first line as a request, or undefined when it is not one. */
function parseRequest(line: string): Request | undefined {
  try {
    const req = JSON.parse(line) as unknown;
    return req && typeof req === 'object' && !Array.isArray(req) ? (req as Request) : undefined;
  } catch {
    return undefined;
  }
}
