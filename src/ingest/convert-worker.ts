/**
 * The thread a converter runs in, so its time and memory can be bounded: the thread that started it
 * terminates it on a deadline, and V8 stops it when its heap passes the limit it was given.
 */
import { parentPort } from 'node:worker_threads';
import { convertDocument, Unreadable, type DocumentKind } from './convert.js';

export interface ConvertRequest {
  kind: DocumentKind;
  bytes: Uint8Array;
  maxHtmlDepth: number;
  /** A fault to simulate (see Settings.fault). */
  fault?: string;
}

export type ConvertReply = { text: string } | { error: string; unreadable: boolean };

parentPort?.on('message', async (r: ConvertRequest) => {
  // Simulated runaway converter, to show that the deadline holds (ZK_MEMORY_FAULT=convert-hang).
  if (r.fault === 'convert-hang') for (;;);
  let reply: ConvertReply;
  try {
    reply = { text: await convertDocument(r.kind, Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength), { maxHtmlDepth: r.maxHtmlDepth }) };
  } catch (err) {
    reply = { error: String((err as Error)?.message ?? err), unreadable: err instanceof Unreadable };
  }
  parentPort?.postMessage(reply);
});
