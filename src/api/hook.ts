import fs from 'node:fs';
import path from 'node:path';
import { current, settings } from '../context.js';
import { asZkError } from '../errors.js';
import { discoverRoot } from '../corpus/files/root.js';
import { endpointConfigured } from '../llm/config.js';
import { captureTurns, type CaptureResult } from '../pipelines/capture.js';
import { HOOK_HOSTS, type HookHost, type HookInput } from '../pipelines/hook-hosts.js';
import { emptyHookAnswer } from '../pipelines/hook-answers.js';
import { logHook } from '../pipelines/hook-log.js';
import { binPath } from '../version.js';
import { context } from './context.js';

// `zk-memory hook HOST`: what an agent host's hook asks of the memory. A hook never breaks the
// agent's session: whatever goes wrong (no corpus, bad input, a lock held, a full disk, a slow
// index), it answers the host's empty answer in time, and says what happened in `.zk/hooks.log`.

export const HOOK_HOSTS_NAMES = Object.keys(HOOK_HOSTS);

/**
 * When a hook answers at the latest, before its process's guard (ZK_MEMORY_HOOK_TIMEOUT, from the
 * process's start) answers for it: in its own process, this much before the guard; answered by
 * the resident server, this much more, for the client's own start and the socket.
 */
export const HOOK_MARGIN_MS = 300;

/** How long a hook's work may take: `elapsed` ms of the hook's process are gone (none when the server answers). */
export function hookDeadlineMs(elapsed: number | undefined): number {
  const timeout = settings().hookTimeoutMs();
  return Math.max(100, elapsed === undefined ? timeout - 2 * HOOK_MARGIN_MS : timeout - HOOK_MARGIN_MS - elapsed);
}

/** The most characters of context a hook hands over: Claude Code passes 10,000 whole. */
export const MAX_HOOK_CONTEXT_CHARS = 9000;

export interface HookAnswer {
  /** What the hook prints on stdout: always valid for the host. */
  output: string;
  host: string;
  event: string | null;
  /** What was done: context for a session or a prompt, a capture, nothing, or why not. */
  outcome: 'session' | 'prompt' | 'capture' | 'nothing' | 'no corpus' | 'failed' | 'timed out';
  root: string | null;
  captured?: CaptureResult;
}

export interface HookRequest {
  /** The corpus, when the command line or the environment named one. */
  root?: string;
  /** How long the work may take (default: as answered by the server, hookDeadlineMs). */
  deadlineMs?: number;
}

/** The line a session's agent is given when inputs wait in the inbox. */
export function inboxLine(waiting: number): string {
  const n = `${waiting} input${waiting === 1 ? '' : 's'}`;
  return `${n} wait${waiting === 1 ? 's' : ''} in the memory's inbox (captured sessions, or memories not yet judged). When you have a moment, keep them yourself: call inbox_next, write what matters with write or merge in your own words, then inbox_done (or inbox_skip when nothing is worth keeping).`;
}

/** Context as a host is given it: marked as recalled, so a captured session never stores it again; never past the host's limit. */
export function recallBlock(text: string): string {
  const open = '<recall source="zk-memory">\n';
  const close = '\n</recall>';
  const cutMark = '\n…';
  const room = MAX_HOOK_CONTEXT_CHARS - open.length - close.length;
  let body = text.trim();
  if (body.length > room) {
    // cut at the last line that leaves room for the mark
    const cut = body.lastIndexOf('\n', room - cutMark.length);
    body = `${body.slice(0, cut > 0 ? cut : room - cutMark.length)}${cutMark}`;
  }
  return `${open}${body}${close}`;
}

/** The corpus: the one named, else the nearest holding `.zk/` from the hook's working folder, else from ours. */
function findRoot(explicit: string | undefined, input: HookInput | undefined, cwd: string): string | undefined {
  if (explicit !== undefined) return fs.existsSync(path.join(explicit, '.zk')) ? explicit : undefined;
  return (input?.cwd && path.isAbsolute(input.cwd) ? discoverRoot(input.cwd) : undefined) ?? discoverRoot(cwd);
}

/**
 * Distill the inbox in the background when an LLM is configured: a detached `retain --drain
 * --lease`, which holds the caretaker lease (a drain already running keeps it, and this one does
 * nothing), so the hook never waits for the model.
 */
async function drainInBackground(root: string): Promise<void> {
  if (!endpointConfigured('llm')) return;
  const { startDetached } = await import('../adapters/processes.js');
  startDetached(process.execPath, [binPath(), 'retain', '--drain', '--lease', '--root', root], { ...settings().environment(), ZK_MEMORY_SERVER: 'off' });
}

async function act(host: HookHost, input: HookInput, root: string): Promise<Omit<HookAnswer, 'host' | 'event' | 'root'>> {
  const a = input.action;
  // Test seam: work that never ends (a hung disk), for the deadlines to answer.
  if (settings().fault() === 'hook-hang') await new Promise(() => setInterval(() => undefined, 1000));
  if (a.kind === 'session') {
    const r = await context(root, {});
    const text = [r.text.trim(), r.inbox ? inboxLine(r.inbox) : ''].filter(Boolean).join('\n\n');
    return { outcome: 'session', output: text ? host.answer(input.event, recallBlock(text)) : host.empty };
  }
  if (a.kind === 'prompt') {
    const r = await context(root, { query: a.prompt });
    return { outcome: 'prompt', output: r.notes.length ? host.answer(input.event, recallBlock(r.text)) : host.empty };
  }
  if (a.kind === 'capture') {
    const captured = await captureTurns(root, { host: host.name, session: a.session, turns: a.turns() });
    if (captured.spooled) await drainInBackground(root);
    return { outcome: 'capture', output: host.empty, captured };
  }
  return { outcome: 'nothing', output: host.empty };
}

/**
 * Answer one hook event of `hostName` from its stdin. Never throws and never takes much longer
 * than the deadline: what fails or is late is answered empty and logged in the corpus's
 * `.zk/hooks.log` (when there is a corpus).
 */
export async function hook(hostName: string, stdin: string | undefined, o: HookRequest = {}): Promise<HookAnswer> {
  const host = HOOK_HOSTS[hostName];
  const base = { host: hostName, event: null, root: null, output: emptyHookAnswer(hostName) };
  if (!host) {
    const root = findRoot(o.root, undefined, current().io.cwd());
    if (root) logHook(root, { host: hostName, event: null, outcome: 'failed', error: `unknown host (hooks are for ${HOOK_HOSTS_NAMES.join(', ')})` });
    return { ...base, root: root ?? null, outcome: root ? 'failed' : 'no corpus' };
  }
  let input: HookInput | undefined;
  let problem: string | undefined;
  try {
    input = host.parse(stdin ?? '');
  } catch (err) {
    // A parser's message quotes the input: the log says only what was wrong with it.
    problem = `unreadable hook input: ${err instanceof SyntaxError ? 'not JSON' : asZkError(err).message}`;
  }
  const root = findRoot(o.root, input, current().io.cwd());
  if (!root) return { ...base, event: input?.event ?? null, outcome: 'no corpus' };
  const event = input?.event ?? null;
  const log = (outcome: string, error: string) => logHook(root, { host: hostName, event, outcome, error: error.slice(0, 300) });
  if (!input) {
    log('failed', problem!);
    return { ...base, event, root, outcome: 'failed' };
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), o.deadlineMs ?? hookDeadlineMs(undefined));
  });
  const work = act(host, input, root).then(
    (r) => ({ ...base, ...r, event, root }),
    (err: unknown) => {
      log('failed', asZkError(err).message);
      return { ...base, event, root, outcome: 'failed' as const };
    },
  );
  try {
    const first = await Promise.race([work, late]);
    if (first !== 'late') return first;
    log('timed out', `no answer within ${o.deadlineMs ?? hookDeadlineMs(undefined)} ms (a corpus lock held, a slow index or disk): answered empty`);
    return { ...base, event, root, outcome: 'timed out' };
  } finally {
    clearTimeout(timer);
  }
}
