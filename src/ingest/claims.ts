import { ZkError } from '../errors.js';
import { claimExpired, claimTtlMs, findWindow, isClosed, whoAmI, windowState, type Txn } from './state.js';

/** Claim a window for this reader until the claim time-to-live runs out. */
export function claimWindow(t: Txn, id: string, owner: string): string {
  const expires = new Date(Date.now() + claimTtlMs()).toISOString();
  const w = windowState(t.state, id);
  w.status = 'open';
  w.claim = { owner, ...whoAmI(), expires };
  return expires;
}

/** The first window in reading order that is neither closed nor held by a live claim. */
export function firstFreeWindow(t: Txn): string | undefined {
  const now = Date.now();
  for (const doc of t.manifest.documents) {
    for (const w of doc.windows) {
      const s = t.state.windows[w.id];
      if (!isClosed(s) && claimExpired(s?.claim, now)) return w.id;
    }
  }
  return undefined;
}

/** The window a named reader already holds (live claim), to be shown again rather than a new one. */
export function heldBy(t: Txn, owner: string): string | undefined {
  if (!owner) return undefined;
  return claimedWindows(t).find((id) => {
    const c = t.state.windows[id]?.claim;
    return c?.owner === owner && !claimExpired(c);
  });
}

/** Ids of windows in reading order that are open under a claim. */
function claimedWindows(t: Txn): string[] {
  return t.manifest.documents.flatMap((d) => d.windows.map((w) => w.id)).filter((id) => {
    const s = t.state.windows[id];
    return s?.status === 'open' && s.claim;
  });
}

/**
 * The window an accept or skip is about: the one named, else the caller's only claim (by owner
 * when one is given), else the job's only claim. Several claims need `--window`.
 */
export function targetWindow(t: Txn, flag: string | undefined, owner: string): string {
  if (flag !== undefined) return findWindow(t.manifest, flag.trim()).window.id;
  let open = claimedWindows(t);
  const claim = (id: string) => t.state.windows[id]?.claim;
  const mine = open.filter((id) => claim(id)?.owner === owner);
  if (owner && mine.length) open = mine;
  const live = open.filter((id) => !claimExpired(claim(id)));
  if (open.length > 1 && live.length) open = live;
  if (open.length === 1) return open[0];
  if (!open.length) throw new ZkError('refused', 'no window open: run `ingest next` first, or pass --window ID');
  throw new ZkError('usage', `several windows are open (${open.join(', ')}): pass --window ID`);
}

/** Refuse to act on a window that is already done or skipped. */
export function requireOpen(t: Txn, id: string): void {
  const s = t.state.windows[id];
  if (isClosed(s)) throw new ZkError('refused', `window ${id} is already ${s?.status}: run \`ingest next\` for the next one`);
}
