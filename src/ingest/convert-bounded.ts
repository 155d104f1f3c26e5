/**
 * Conversion that cannot eat the machine: a DOCX's unpacked size is checked before it is unpacked,
 * HTML nesting before it is parsed (in convert.ts), and each HTML, DOCX or PDF converter runs in a
 * worker thread under a deadline and a heap limit. A document that passes a bound is Unreadable,
 * with the bound named, and the rest of the sources are still read.
 */
import { settings } from '../context.js';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { convertDocument, MAX_HTML_DEPTH, Unreadable, type DocumentKind } from './convert.js';
import type { ConvertReply, ConvertRequest } from './convert-worker.js';
import { checkUnpackedSize } from './zip-size.js';

export interface ConvertLimits {
  /** Longest one document's conversion may take. */
  seconds: number;
  /** Heap a converter may use, in MiB. */
  memoryMb: number;
  /** Deepest HTML nesting read (a DOCX's HTML included). */
  htmlDepth: number;
  /** Most bytes a DOCX may unpack to. */
  unpackedBytes: number;
  /** Most entries a DOCX archive may list. */
  zipEntries: number;
}

/** The bounds of `ingest start`; the deadline can be raised with ZK_MEMORY_INGEST_CONVERT_SECONDS. */
export function defaultConvertLimits(): ConvertLimits {
  return {
    seconds: settings().ingestConvertSeconds(),
    memoryMb: 1024,
    htmlDepth: MAX_HTML_DEPTH,
    unpackedBytes: 256 * 1024 * 1024,
    zipEntries: 10_000,
  };
}

const WORKER = new URL('./convert-worker.js', import.meta.url);

/**
 * Converts documents one at a time in one worker thread, started on first need and started again
 * after a document that had to be stopped. `close` ends it.
 */
export class BoundedConverter {
  private worker?: Worker;
  // Run from TypeScript sources (a test runner), there is no compiled worker to start: conversion
  // then happens in this thread with the structural checks only (size, depth), without the deadline.
  private readonly inThread = !fs.existsSync(fileURLToPath(WORKER));

  constructor(private readonly limits: ConvertLimits = defaultConvertLimits()) {}

  async convert(kind: DocumentKind, bytes: Buffer): Promise<string> {
    if (kind === 'markdown' || kind === 'text') return convertDocument(kind, bytes);
    if (kind === 'docx') await checkUnpackedSize(bytes, { unpackedBytes: this.limits.unpackedBytes, entries: this.limits.zipEntries });
    if (this.inThread) return convertDocument(kind, bytes, { maxHtmlDepth: this.limits.htmlDepth });
    return this.inWorker({ kind, bytes, maxHtmlDepth: this.limits.htmlDepth, fault: settings().fault() });
  }

  async close(): Promise<void> {
    await this.discard();
  }

  private start(): Worker {
    const w = new Worker(WORKER, { resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb } });
    // Only a conversion in progress (its deadline timer) keeps the process alive.
    w.unref();
    return w;
  }

  private async discard(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }

  private inWorker(request: ConvertRequest): Promise<string> {
    const worker = (this.worker ??= this.start());
    return new Promise((resolve, reject) => {
      const settle = (stop: boolean, outcome: () => void) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (stop) void this.discard();
        outcome();
      };
      const onMessage = (r: ConvertReply) =>
        settle(false, () => ('text' in r ? resolve(r.text) : reject(r.unreadable ? new Unreadable(r.error) : new Error(r.error))));
      const onError = (err: Error & { code?: string }) =>
        settle(true, () =>
          reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new Unreadable(`conversion needed more than ${this.limits.memoryMb} MiB of memory: refused`) : err),
        );
      const onExit = (code: number) => settle(true, () => reject(new Error(`the converter stopped (exit code ${code})`)));
      const timer = setTimeout(
        () => settle(true, () => reject(new Unreadable(`conversion took longer than ${this.limits.seconds} s: refused (ZK_MEMORY_INGEST_CONVERT_SECONDS)`))),
        this.limits.seconds * 1000,
      );
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage(request);
    });
  }
}
