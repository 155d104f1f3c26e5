import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { now } from '../context.js';
import { createFileExclusive, replaceFile, sidecarDir } from '../corpus/files/files.js';
import { ensureSidecar } from '../corpus/files/sidecar.js';
import { relToRoot, sidecar } from '../corpus/files/paths.js';
import { trace } from '../corpus/trace/trace.js';
import { ZkError } from '../errors.js';
import type { Candidate } from '../judge/schemas.js';

/** Something that still has to go through the LLM: text to distill, or a candidate to place. */
export type InboxItem = { type: 'text'; text: string } | { type: 'candidate'; candidate: Candidate };

/** One inbox file: what could not be processed by one command, and why. */
export interface InboxEntry {
  version: 1;
  created: string;
  source: string | null;
  reason: string;
  items: InboxItem[];
}

const CLAIMED = '.claimed';
/** Who holds a claim, in its file name: a drain's process id, or an agent's session. */
const CLAIM_HOLDER = /^[0-9a-z]+$/;
/** A claim older than this belongs to a drain that died; its file is taken up again. */
const CLAIM_STALE_MS = 30 * 60 * 1000;

/** Keep items for a later `retain --drain`. Returns the inbox file's path relative to the root. */
export function spool(root: string, items: InboxItem[], o: { source?: string; reason: string }): string {
  ensureSidecar(root);
  const dir = sidecar(root).inbox;
  sidecarDir(dir);
  const entry: InboxEntry = { version: 1, created: new Date(now()).toISOString(), source: o.source ?? null, reason: o.reason, items };
  // Milliseconds in the name, so files spooled within one second still drain oldest first.
  const stamp = entry.created.replace(/[-:.]/g, '');
  for (;;) {
    const file = path.join(dir, `${stamp}-${crypto.randomUUID().slice(0, 8)}.json`);
    if (createFileExclusive(root, file, `${JSON.stringify(entry, null, 2)}\n`)) {
      const rel = relToRoot(root, file);
      trace(root, 'spool', { path: rel, items: items.length, reason: o.reason });
      return rel;
    }
  }
}

/** Inbox files waiting to be drained, oldest first. */
export function inboxFiles(root: string): string[] {
  try {
    return fs
      .readdirSync(sidecar(root).inbox)
      .filter((f) => f.endsWith('.json') && !f.includes(CLAIMED))
      .sort();
  } catch {
    return [];
  }
}

/** Give files claimed by a drain (or an agent) that died back to the inbox. */
export function releaseStaleClaims(dir: string): void {
  for (const f of fs.readdirSync(dir)) {
    const m = /^(.*)\.claimed-[0-9a-z]+\.json$/.exec(f);
    if (!m) continue;
    try {
      if (now() - fs.statSync(path.join(dir, f)).mtimeMs > CLAIM_STALE_MS) fs.renameSync(path.join(dir, f), path.join(dir, `${m[1]}.json`));
    } catch {
      // another drain got there first
    }
  }
}

/**
 * Take the oldest waiting inbox file for an agent to keep by hand: claimed the way a drain claims
 * (renamed to `<name>.claimed-<holder>.json`, and stamped now, so the claim lasts its 30 minutes),
 * so no drain takes it meanwhile. A file `holder` already holds is given again first (`held`). The
 * holder is the agent's session (a resident server answers many sessions in one process), by
 * default this process. Answers the file's inbox name and where it lies now, or undefined when
 * nothing waits.
 */
export function takeInboxFile(root: string, holder = String(globalThis.process.pid)): { name: string; at: string; held: boolean } | undefined {
  if (!CLAIM_HOLDER.test(holder)) throw new Error(`invalid inbox claim holder: ${JSON.stringify(holder)}`);
  const dir = sidecar(root).inbox;
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return undefined;
  }
  const mine = `${CLAIMED}-${holder}.json`;
  const held = names.find((f) => f.endsWith(mine));
  if (held) return { name: `${held.slice(0, -mine.length)}.json`, at: path.join(dir, held), held: true };
  releaseStaleClaims(dir);
  for (const name of inboxFiles(root)) {
    const at = path.join(dir, name.replace(/\.json$/, mine));
    try {
      fs.renameSync(path.join(dir, name), at);
    } catch {
      continue; // taken by a drain meanwhile
    }
    const t = new Date(now());
    fs.utimesSync(at, t, t);
    return { name, at, held: false };
  }
  return undefined;
}

/** Where an inbox file lies now: under its name, or claimed by some process; undefined when it is gone. */
export function findInboxFile(root: string, name: string): string | undefined {
  const dir = sidecar(root).inbox;
  if (fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false })?.isFile()) return path.join(dir, name);
  const stem = name.replace(/\.json$/, '');
  try {
    const claimed = fs.readdirSync(dir).find((f) => f.startsWith(`${stem}${CLAIMED}-`) && /\.claimed-[0-9a-z]+\.json$/.test(f));
    return claimed ? path.join(dir, claimed) : undefined;
  } catch {
    return undefined;
  }
}

export interface DrainReport {
  files: number;
  done: number;
  kept: number;
  /** Why the drain stopped early: the LLM endpoint cannot be reached, so nothing after it was tried. */
  stopped?: ZkError;
}

/**
 * Retry every inbox file: each is claimed by renaming it (so two drains never take the same one),
 * its items are processed one by one, and after each the file is rewritten to hold only what is
 * left, so a drain that dies repeats at most one item. What failed again goes back to the inbox.
 * An item that fails with `llm_unreachable` stops the drain: every later item would fail alike,
 * so what is left of its file goes back and later files are not touched.
 */
export async function drainInbox(root: string, process: (item: InboxItem, entry: InboxEntry) => Promise<void>): Promise<DrainReport> {
  const dir = sidecar(root).inbox;
  const report: DrainReport = { files: 0, done: 0, kept: 0 };
  if (!fs.existsSync(dir)) return report;
  releaseStaleClaims(dir);
  for (const name of inboxFiles(root)) {
    const original = path.join(dir, name);
    const claimed = path.join(dir, name.replace(/\.json$/, `${CLAIMED}-${globalThis.process.pid}.json`));
    try {
      fs.renameSync(original, claimed);
    } catch {
      continue; // taken by another drain
    }
    report.files++;
    let entry: InboxEntry;
    try {
      entry = JSON.parse(fs.readFileSync(claimed, 'utf8')) as InboxEntry;
      // Valid JSON that is not an entry (damaged by hand) is set aside like unparsable text.
      if (!entry || typeof entry !== 'object' || (entry.items !== undefined && !Array.isArray(entry.items))) throw new Error('not an inbox entry');
    } catch {
      fs.renameSync(claimed, `${original}.unreadable`);
      continue;
    }
    const failed: InboxItem[] = [];
    const items = entry.items ?? [];
    let left: InboxItem[] = [];
    for (const [i, item] of items.entries()) {
      try {
        await process(item, entry);
        report.done++;
      } catch (err) {
        failed.push(item);
        entry.reason = String((err as Error).message ?? err);
        if (err instanceof ZkError && err.code === 'llm_unreachable') report.stopped = err;
      }
      left = [...failed, ...items.slice(i + 1)];
      replaceFile(root, claimed, `${JSON.stringify({ ...entry, items: left }, null, 2)}\n`);
      if (report.stopped) break;
    }
    report.kept += left.length;
    if (left.length) fs.renameSync(claimed, original);
    else fs.rmSync(claimed, { force: true });
    if (report.stopped) break;
  }
  return report;
}
