import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { now } from '../context.js';
import { ZkError } from '../errors.js';
import { replaceFile, sha256, sidecarDir, writeNewFile } from '../corpus/files/files.js';
import { ensureSidecar } from '../corpus/files/sidecar.js';
import { relToRoot, sidecar } from '../corpus/files/paths.js';
import { pidAlive } from '../corpus/lock/lease.js';
import { crashAt } from '../corpus/ops/fault.js';
import { trace } from '../corpus/trace/trace.js';
import { stripRecall, transcriptSegments, type InputMessage } from '../judge/transcript.js';
import type { InboxEntry } from './inbox.js';
import { addRedactions, noRedactions, redact, type Redactions } from './redact.js';

// Sessions captured without asking: the turns an agent host's session added since its last
// capture go into the inbox as one retain input, redacted first. A checkpoint per session under
// `.zk/capture/` remembers which turns were taken, so the same event twice, a transcript read
// again, rewritten or shortened, or a session resumed later adds only what is new.

/** One turn of a session, with a key that names it whatever else the transcript holds. */
export interface Turn {
  key: string;
  role: 'user' | 'assistant';
  text: string;
}

/** The largest transcript read whole; of a larger one, only its last part (the newest turns). */
const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

const keyOf = (s: string) => sha256(s).slice(0, 16);

/** The text a Claude Code message carries: its text blocks, and one line per tool call (tool results are left out). */
function claudeText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (!block || typeof block !== 'object') continue;
    const b = block as { type?: unknown; text?: unknown; name?: unknown };
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'tool_use' && typeof b.name === 'string') parts.push(`[used the tool ${b.name}]`);
  }
  return parts.join('\n');
}

/**
 * The tail of a regular file, at most `max` bytes, from the first whole line. Opened without
 * blocking and refused unless a regular file: a FIFO or a device named as a transcript would
 * otherwise hold the hook past any deadline.
 */
function readTail(file: string, max: number): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`the transcript is not a regular file: ${file}`);
    const size = st.size;
    if (size <= max) return fs.readFileSync(fd, 'utf8');
    const buf = Buffer.alloc(max);
    const n = fs.readSync(fd, buf, 0, max, size - max);
    const text = buf.subarray(0, n).toString('utf8');
    return text.slice(text.indexOf('\n') + 1);
  } finally {
    fs.closeSync(fd);
  }
}

/** A line of a Claude Code transcript, as far as it is read: any field may be missing. */
interface TranscriptEvent {
  type?: unknown;
  uuid?: unknown;
  isMeta?: unknown;
  isCompactSummary?: unknown;
  isSidechain?: unknown;
  message?: { content?: unknown };
}

/**
 * The turns of a Claude Code transcript (JSONL, one event a line): lines whose `type` is `user` or
 * `assistant` with `message.content` a string or a list of blocks. Lines the host injected
 * (`isMeta`), the summary it writes when it compacts (`isCompactSummary`, a user line: a recap of
 * turns captured already) and a subagent's (`isSidechain`) are not the conversation; a line that does not parse
 * (one being written) is skipped. A line's key is its `uuid`, else its text.
 */
export function claudeTranscriptTurns(file: string): Turn[] {
  const turns: Turn[] = [];
  for (const line of readTail(file, MAX_TRANSCRIPT_BYTES).split('\n')) {
    if (!line.trim()) continue;
    let event: TranscriptEvent | null;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (!event || (event.type !== 'user' && event.type !== 'assistant') || event.isMeta || event.isCompactSummary || event.isSidechain) continue;
    const text = claudeText(event.message?.content).trim();
    if (!text) continue;
    turns.push({ key: keyOf(typeof event.uuid === 'string' ? `uuid:${event.uuid}` : line), role: event.type, text });
  }
  return turns;
}

/** One exchange a host hands over whole (Gemini CLI's AfterAgent): its key is its text. */
export function exchangeTurns(prompt: string, response: string): Turn[] {
  const key = keyOf(`exchange:${prompt}\u0000${response}`);
  return [
    { key: `${key}u`, role: 'user' as const, text: prompt },
    { key: `${key}a`, role: 'assistant' as const, text: response },
  ].filter((t) => t.text.trim());
}

interface Checkpoint {
  version: 1;
  host: string;
  session: string;
  /** Keys of every turn captured so far. */
  seen: string[];
  /** An inbox file written but maybe not yet published (`<name>.capturing`). */
  pending: string | null;
  /** Whether the turns captured so far leave a `<private>` span open: the next turns are private until one closes it. */
  private_open?: boolean;
  updated: string;
}

export interface CaptureResult {
  /** Turns new since the last capture. */
  turns: number;
  /** The inbox file they went to (relative to the root), or null when there was nothing new to keep. */
  spooled: string | null;
  redactions: Redactions;
}

const CAPTURING = '.capturing';

/** The name that stands for a session in file names: a hash, so no session id can name a path. */
const sessionTag = (host: string, session: string) => sha256(`${host}\u0000${session}`).slice(0, 12);

function checkpointFile(root: string, tag: string): string {
  return path.join(sidecar(root).capture, `${tag}.json`);
}

function readCheckpoint(root: string, tag: string): Checkpoint | undefined {
  try {
    const c = JSON.parse(fs.readFileSync(checkpointFile(root, tag), 'utf8')) as Checkpoint;
    return c && Array.isArray(c.seen) ? c : undefined;
  } catch {
    return undefined;
  }
}

function writeCheckpoint(root: string, tag: string, c: Checkpoint): void {
  replaceFile(root, checkpointFile(root, tag), `${JSON.stringify({ ...c, updated: new Date(now()).toISOString() })}\n`);
}

/** How long a capture waits for another capture of the same session to finish. */
const SESSION_LOCK_WAIT_MS = 5000;

/**
 * Take the lock of one session's captures (`.zk/capture/<tag>.lock`, made exclusively, naming its
 * process), or answer false when a live process holds it. A lock left by a process of this host
 * that is gone (a hook its host killed at its timeout) is taken over at once, so captures never
 * wait out a stale window the way the corpus lock's waiters do; captures take no corpus lock (they
 * only add inbox files), so a corpus lock held elsewhere never holds them up.
 */
function trySessionLock(file: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ host: os.hostname(), pid: process.pid }), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let holder: { host?: string; pid?: number } | undefined;
    try {
      holder = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      holder = undefined; // being written, or damaged: judged by its age below
    }
    const dead = holder?.host === os.hostname() && typeof holder.pid === 'number' && !pidAlive(holder.pid);
    const abandoned = !holder && now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) > SESSION_LOCK_WAIT_MS;
    if (!dead && !abandoned) return false;
    fs.rmSync(file, { force: true });
  }
  return false;
}

async function withSessionLock<T>(root: string, tag: string, fn: () => T, wait = SESSION_LOCK_WAIT_MS): Promise<T> {
  const file = path.join(sidecar(root).capture, `${tag}.lock`);
  const began = performance.now();
  while (!trySessionLock(file)) {
    if (performance.now() - began > wait) throw new ZkError('busy', `another capture of this session holds ${relToRoot(root, file)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  try {
    return fn();
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * Finish what a capture killed midway left: an inbox file written as `<name>.capturing` is
 * published when its session's checkpoint names it (its turns are marked taken, so it is their only
 * copy), and removed when not (the checkpoint was never written, so its turns are taken again).
 */
function recoverCaptures(root: string, tag: string): void {
  const dir = sidecar(root).inbox;
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((f) => f.endsWith(CAPTURING) && captureTag(f) === tag);
  } catch {
    return;
  }
  for (const file of names) {
    const name = file.slice(0, -CAPTURING.length);
    const c = readCheckpoint(root, tag);
    if (c?.pending === name) {
      publish(root, name);
      writeCheckpoint(root, tag, { ...c, pending: null });
    } else {
      fs.rmSync(path.join(dir, file), { force: true });
    }
  }
}

/** The session tag an inbox file's name carries (`<stamp>-<tag>-<random>.json`). */
const captureTag = (file: string) => /^[^-]+-([0-9a-f]{12})-/.exec(file)?.[1];

/**
 * What killed captures of other sessions left, recovered for each session whose lock is free
 * (a session that never captures again still gets its turns published).
 */
function recoverOtherSessions(root: string, tag: string): void {
  let tags: Set<string>;
  try {
    tags = new Set(
      fs
        .readdirSync(sidecar(root).inbox)
        .filter((f) => f.endsWith(CAPTURING))
        .flatMap((f) => captureTag(f) ?? []),
    );
  } catch {
    return;
  }
  tags.delete(tag);
  for (const other of tags) {
    const file = path.join(sidecar(root).capture, `${other}.lock`);
    if (!trySessionLock(file)) continue;
    try {
      recoverCaptures(root, other);
    } finally {
      fs.rmSync(file, { force: true });
    }
  }
}

function publish(root: string, name: string): void {
  const dir = sidecar(root).inbox;
  fs.renameSync(path.join(dir, `${name}${CAPTURING}`), path.join(dir, name));
}

/**
 * The turns as the distiller reads them, redacted, in segments; how much was taken out; and whether
 * a private span is left open at the end. A span opened in one turn runs over the turns after it
 * until one closes it (`inPrivate`: an earlier capture of the session left one open).
 */
function redactedSegments(turns: Turn[], inPrivate: boolean): { segments: string[]; redactions: Redactions; open: boolean } {
  let redactions = noRedactions();
  let open = inPrivate;
  const messages: InputMessage[] = turns.map((t) => {
    // What the memory injected goes first: a tag quoted in a recalled note opens no private span.
    const r = redact(stripRecall(t.text), { inPrivate: open });
    redactions = addRedactions(redactions, r.redactions);
    open = r.open;
    return { role: t.role, content: r.text };
  });
  return { segments: transcriptSegments(messages), redactions, open };
}

/**
 * Keep the turns of a session not captured before as one retain input in the inbox, under the
 * session's own lock. The order makes a kill at any point lose and double nothing: the inbox file is
 * written under a name no drain or listing reads (`.capturing`), then the checkpoint marks its
 * turns taken and names it, then it is published by a rename; the next capture finishes or
 * undoes what a killed one left (recoverCaptures).
 */
export async function captureTurns(root: string, o: { host: string; session: string; turns: Turn[] }): Promise<CaptureResult> {
  ensureSidecar(root);
  sidecarDir(sidecar(root).capture);
  sidecarDir(sidecar(root).inbox);
  const tag = sessionTag(o.host, o.session);
  return withSessionLock(root, tag, () => {
    recoverCaptures(root, tag);
    recoverOtherSessions(root, tag);
    const before = readCheckpoint(root, tag);
    const seen = new Set(before?.seen ?? []);
    const fresh = o.turns.filter((t) => !seen.has(t.key));
    if (!fresh.length) return { turns: 0, spooled: null, redactions: noRedactions() };
    const { segments, redactions, open } = redactedSegments(fresh, before?.private_open === true);
    const next: Checkpoint = {
      version: 1,
      host: o.host,
      session: o.session,
      seen: [...seen, ...fresh.map((t) => t.key)],
      pending: null,
      private_open: open,
      updated: '',
    };
    if (!segments.length) {
      writeCheckpoint(root, tag, next);
      return { turns: fresh.length, spooled: null, redactions };
    }
    const created = new Date(now()).toISOString();
    const name = `${created.replace(/[-:.]/g, '')}-${tag}-${crypto.randomUUID().slice(0, 8)}.json`;
    const source = `${o.host}:${o.session}`;
    const entry: InboxEntry & { capture: object } = {
      version: 1,
      created,
      source,
      reason: `captured from a ${o.host} session: waits for an LLM (retain --drain) or an agent (inbox_next)`,
      items: segments.map((text) => ({ type: 'text', text })),
      capture: { host: o.host, session: o.session, turns: fresh.length },
    };
    writeNewFile(path.join(sidecar(root).inbox, `${name}${CAPTURING}`), `${JSON.stringify(entry, null, 2)}\n`);
    crashAt('capture-before-checkpoint');
    writeCheckpoint(root, tag, { ...next, pending: name });
    crashAt('capture-before-publish');
    publish(root, name);
    crashAt('capture-before-done');
    writeCheckpoint(root, tag, next);
    const rel = relToRoot(root, path.join(sidecar(root).inbox, name));
    trace(root, 'capture', { host: o.host, session: o.session, path: rel, turns: fresh.length, items: segments.length, redacted: redactions });
    return { turns: fresh.length, spooled: rel, redactions };
  });
}
