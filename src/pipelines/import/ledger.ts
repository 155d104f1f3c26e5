import fs from 'node:fs';
import path from 'node:path';
import { now } from '../../context.js';
import { openSidecarForAppend, sidecarDir, writeAll } from '../../corpus/files/files.js';
import { sidecar } from '../../corpus/files/paths.js';

// The inputs an import left in the inbox: no note records them until an LLM distills them, so
// `.zk/inbox/imported.jsonl` does, one JSON line each, `{ts, format, id, inbox}`. A re-import skips
// them. It lives in the inbox, which is this host's (not versioned): what it records is too.

function ledgerFile(root: string, make = false): string {
  const dir = sidecar(root).inbox;
  return path.join(make ? sidecarDir(dir) : dir, 'imported.jsonl');
}

/** The `format`/`id` pairs an import queued before, as keys `format\0id`. */
export function queuedBefore(root: string): Set<string> {
  const keys = new Set<string>();
  let text: string;
  try {
    text = fs.readFileSync(ledgerFile(root), 'utf8');
  } catch {
    return keys;
  }
  for (const line of text.split('\n')) {
    try {
      const e = JSON.parse(line) as { format?: unknown; id?: unknown };
      if (typeof e.format === 'string' && typeof e.id === 'string') keys.add(`${e.format}\u0000${e.id}`);
    } catch {
      // a line cut short by a crash: its input was queued, or will be again
    }
  }
  return keys;
}

/**
 * Record that an input went to the inbox, after it did: a crash between the two leaves it queued
 * twice at worst (distilled twice, merged into the same notes), never not at all.
 */
export function recordQueued(root: string, format: string, id: string, inbox: string): void {
  const fd = openSidecarForAppend(ledgerFile(root, true));
  try {
    writeAll(fd, Buffer.from(`${JSON.stringify({ ts: new Date(now()).toISOString(), format, id, inbox })}\n`, 'utf8'));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
