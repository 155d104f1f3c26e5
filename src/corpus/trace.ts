import fs from 'node:fs';
import { sidecar } from './paths.js';
import { ensureSidecar } from './sidecar.js';

/**
 * Append one event to `.zk/trace.jsonl`. Best effort: a trace that cannot be written is dropped,
 * never allowed to fail the work it describes.
 */
export function trace(root: string, event: string, fields: Record<string, unknown> = {}): void {
  try {
    const p = sidecar(root);
    ensureSidecar(root);
    const line = JSON.stringify({ ts: new Date().toISOString(), event, ...fields });
    fs.appendFileSync(p.trace, `${line}\n`);
  } catch {
    // diagnostics never break the work
  }
}
