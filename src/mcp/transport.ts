import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC error codes this transport answers with itself. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * MCP over stdio, one JSON-RPC message a line, hardened: a line that is not JSON gets a parse
 * error, a batch or a message that is not a JSON-RPC request gets an invalid-request error, and a
 * line over `maxLineBytes` is skipped as it streams (never buffered whole) and answered with an
 * error; the server keeps serving after each. Nothing but JSON-RPC is ever written to stdout.
 */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes of an over-long line skipped so far (0 when not skipping). */
  private skipped = 0;
  /** The start of an over-long line, kept to find its id. */
  private skippedHead = '';
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly maxLineBytes: number,
  ) {}

  private readonly onData = (chunk: Buffer) => this.take(chunk);
  private readonly onEnd = () => void this.close();

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', (err: Error) => this.onerror?.(err));
    // A connection handed over paused (a resident server read its first line) flows from here.
    this.input.resume();
  }

  private take(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(10, at);
      const end = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(at, end);
      if (this.skipped || this.buffered + piece.length > this.maxLineBytes) {
        if (!this.skipped)
          this.skippedHead = Buffer.concat([...this.chunks, piece])
            .subarray(0, 256)
            .toString('utf8');
        this.skipped += this.buffered + piece.length;
        this.chunks = [];
        this.buffered = 0;
      } else {
        this.chunks.push(piece);
        this.buffered += piece.length;
      }
      if (nl < 0) break;
      this.endOfLine();
      at = nl + 1;
    }
  }

  private endOfLine(): void {
    if (this.skipped) {
      const id = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(this.skippedHead)?.[1];
      const message = `message too large: ${this.skipped} bytes (the limit is ${this.maxLineBytes})`;
      this.skipped = 0;
      this.skippedHead = '';
      void this.sendError(id === undefined ? null : (JSON.parse(id) as string | number), INVALID_REQUEST, message);
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.buffered = 0;
    if (!line.trim()) return;
    this.dispatch(line);
  }

  private dispatch(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      void this.sendError(null, PARSE_ERROR, 'parse error: the line is not JSON');
      return;
    }
    if (Array.isArray(value)) {
      void this.sendError(null, INVALID_REQUEST, 'invalid request: batches are not supported; send one message a line');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown })?.id;
      const usable = typeof id === 'string' || typeof id === 'number' ? id : null;
      void this.sendError(usable, INVALID_REQUEST, 'invalid request: not a JSON-RPC 2.0 request, notification or response');
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (err) {
      this.onerror?.(err as Error);
    }
  }

  private sendError(id: string | number | null, code: number, message: string): Promise<void> {
    return this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  private write(message: unknown): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.onclose?.();
  }
}
