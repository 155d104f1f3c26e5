import fs from 'node:fs';
import { recordChange, now } from '../../context.js';
import { openSidecarForAppend, writeAll } from '../files/files.js';
import { sidecar } from '../files/paths.js';
import { ensureSidecar } from '../files/sidecar.js';
import { warn } from '../warn.js';
import { ZkError } from '../../errors.js';

/**
 * Append one event to `.zk/trace.jsonl`. Best effort: a trace that cannot be written is dropped,
 * never allowed to fail the work it describes.
 */
export function trace(root: string, event: string, fields: Record<string, unknown> = {}): void {
  try {
    const p = sidecar(root);
    ensureSidecar(root);
    const line = `${JSON.stringify({ ts: new Date(now()).toISOString(), event, ...fields })}\n`;
    // Never through a symlink planted at the trace's name (it would append to a file elsewhere).
    const fd = openSidecarForAppend(p.trace);
    try {
      writeAll(fd, Buffer.from(line, 'utf8'));
      // The line itself: a commit of this call takes its own lines of the trace only.
      recordChange({ path: p.trace, what: 'appended', text: line });
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    // diagnostics never break the work; a planted symlink is worth saying, though
    if (err instanceof ZkError) warn(err.message);
  }
}
