import { now } from '../context.js';
import { ZkError } from '../errors.js';
import { claimExpired, claimTtlMs, findWindow, isClosed, ownerGone, whoAmI, windowState, type Claim, type Txn } from './state.js';
import { hint } from '../hints.js';

/**
 * Who is asking. A reader with a name (`--source`) is that name wherever it runs. A reader without
 * one is this process, and also every earlier call without a name on this host that has ended
 * before this one started: calls made one after the other are one reader reading in turn, while
 * calls running at the same time stay apart.
 */
export interface Reader {
  owner: string;
  host: string;
  pid: number;
  /** When this process started, in ms since the epoch. */
  startedAt: number;
}

export function currentReader(owner: string | undefined): Reader {
  return { owner: owner ?? '', ...whoAmI(), startedAt: performance.timeOrigin };
}

/** Is this claim the reader's own (see Reader)? */
export function isOwn(c: Claim | undefined, r: Reader): boolean {
  if (!c) return false;
  if (r.owner) return c.owner === r.owner;
  if (c.owner || c.host !== r.host) return false;
  if (c.pid === r.pid) return true;
  return c.at !== undefined && Date.parse(c.at) < r.startedAt && ownerGone(c);
}

/** Claim a window for this reader until the claim time-to-live runs out. */
export function claimWindow(t: Txn, id: string, owner: string): string {
  const at = now();
  const expires = new Date(at + claimTtlMs()).toISOString();
  const w = windowState(t.state, id);
  w.status = 'open';
  w.claim = { owner, ...whoAmI(), at: new Date(at).toISOString(), expires };
  return expires;
}

/** The first window in reading order that is neither closed nor held by a live claim. */
export function firstFreeWindow(t: Txn): string | undefined {
  const time = now();
  for (const doc of t.manifest.documents) {
    for (const w of doc.windows) {
      const s = t.state.windows[w.id];
      if (!isClosed(s) && claimExpired(s?.claim, time)) return w.id;
    }
  }
  return undefined;
}

/** The first window (in reading order) the reader still holds, to be shown again rather than a new one. */
export function heldWindow(t: Txn, r: Reader): string | undefined {
  return claimedWindows(t).find((id) => {
    const c = t.state.windows[id]?.claim;
    return isOwn(c, r) && !claimExpired(c);
  });
}

/** Ids of windows in reading order that are open under a claim. */
function claimedWindows(t: Txn): string[] {
  return t.manifest.documents
    .flatMap((d) => d.windows.map((w) => w.id))
    .filter((id) => {
      const s = t.state.windows[id];
      return s?.status === 'open' && s.claim;
    });
}

/**
 * The window an accept or skip is about: the one named, else the reader's only claim, else the
 * job's only claim. Several claims need `--window`.
 */
export function targetWindow(t: Txn, flag: string | undefined, r: Reader): string {
  if (flag !== undefined) return findWindow(t.manifest, flag.trim()).window.id;
  let open = claimedWindows(t);
  const claim = (id: string) => t.state.windows[id]?.claim;
  const mine = open.filter((id) => isOwn(claim(id), r));
  if (mine.length) open = mine;
  const live = open.filter((id) => !claimExpired(claim(id)));
  if (open.length > 1 && live.length) open = live;
  if (open.length === 1) return open[0];
  if (!open.length) throw new ZkError('refused', `no window open: ${hint('openWindow')}`);
  throw new ZkError('usage', `several windows are open (${open.join(', ')}): ${hint('nameWindow')}`);
}

/** Refuse to act on a window that is already done or skipped. */
export function requireOpen(t: Txn, id: string): void {
  const s = t.state.windows[id];
  if (isClosed(s)) throw new ZkError('refused', `window ${id} is already ${s?.status}: ${hint('nextWindow')}`);
}
