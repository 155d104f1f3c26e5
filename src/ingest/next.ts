import { ZkError } from '../errors.js';
import type { SearchHit } from '../search/backends.js';
import { claimWindow, currentReader, firstFreeWindow, heldWindow, isOwn, requireOpen } from './claims.js';
import { withJob } from './recover.js';
import { relatedNotes } from './related.js';
import { claimExpired, documentText, findWindow, isClosed, pickJob, touch, type JobManifest, type JobState, type JobWindow } from './state.js';

export interface NextOptions {
  job?: string;
  /** Show (and claim) this window again instead of the next free one. */
  window?: string;
  /** Who is reading (see Reader in claims.ts): the reader is shown the window it still holds before a new one. */
  owner?: string;
  /** How many related notes to show. */
  related?: number;
}

export interface WindowView {
  id: string;
  document: { id: string; path: string; kind: string; index: number; count: number };
  index: number;
  count: number;
  /** The heading path of the section the window starts in. */
  headings: string[];
  /** Every section the window holds, where it starts in the document, with its heading path. */
  sections: Array<{ start: number; headings: string[] }>;
  start: number;
  end: number;
  text: string;
  claim_expires: string;
}

export interface CapturedView {
  window: string;
  headings: string[];
  action: 'created' | 'merged';
  uuid: string;
  path: string;
  title: string;
}

export interface NextResult {
  job: string;
  window: WindowView | null;
  /** True when the window shown was already the reader's (claimed by an earlier `next` and still open). */
  held: boolean;
  /** True when nothing is left to read: every window of the job is done or skipped. */
  done: boolean;
  /** The last notes captured from this window's document (at most CAPTURED_SHOWN), oldest first. */
  captured: CapturedView[];
  /** How many notes were captured from this window's document in all. */
  captured_count: number;
  related: SearchHit[];
  related_backend?: string;
  related_error?: string;
  /** Windows not yet done or skipped, this one included. */
  remaining: number;
  /** Of those, how many other readers hold right now. */
  claimed_by_others: number;
}

const RELATED = 5;
const CAPTURED_SHOWN = 5;

/** Every note captured from a document, oldest first. */
function capturedFrom(m: JobManifest, s: JobState, docId: string): Array<CapturedView & { at: string }> {
  const doc = m.documents.find((d) => d.id === docId);
  const all = (doc?.windows ?? []).flatMap((w) =>
    (s.windows[w.id]?.notes ?? []).map((n) => ({
      window: w.id,
      headings: w.headings,
      action: n.action,
      uuid: n.uuid,
      path: n.path,
      title: n.title,
      at: n.at,
    })),
  );
  return all.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

function sectionsOf(w: JobWindow): WindowView['sections'] {
  return w.sections ?? [{ start: w.start, headings: w.headings }];
}

/**
 * Claim the next window (or the one named, or the one this reader still holds) and show it with its
 * context. Writes nothing but the claim.
 */
export async function nextWindow(root: string, o: NextOptions = {}): Promise<NextResult> {
  const job = pickJob(root, o.job);
  const reader = currentReader(o.owner);
  const claimed = await withJob(root, job, (t) => {
    const held = o.window === undefined ? heldWindow(t, reader) : undefined;
    const id = o.window !== undefined ? findWindow(t.manifest, o.window.trim()).window.id : (held ?? firstFreeWindow(t));
    if (id !== undefined) {
      requireOpen(t, id);
      claimWindow(t, id, o.owner ?? '');
      touch(t.state, 'next', id);
    }
    return { id, held: held !== undefined, manifest: t.manifest, state: structuredClone(t.state) };
  });
  const { manifest: m, state: s } = claimed;
  const open = m.documents.flatMap((d) => d.windows).filter((w) => !isClosed(s.windows[w.id]));
  const othersHold = open.filter((w) => {
    const c = s.windows[w.id]?.claim;
    return w.id !== claimed.id && !claimExpired(c) && !isOwn(c, reader);
  }).length;
  const base = { job, held: claimed.held, done: open.length === 0, remaining: open.length, claimed_by_others: othersHold };
  if (claimed.id === undefined) return { ...base, window: null, captured: [], captured_count: 0, related: [] };

  const { doc, window, index } = findWindow(m, claimed.id);
  const text = documentText(root, job, doc).slice(window.start, window.end);
  if (text.length !== window.end - window.start) throw new ZkError('io', `the converted copy of ${doc.path} is damaged (job ${job})`);
  const all = capturedFrom(m, s, doc.id);
  const captured = all.slice(-CAPTURED_SHOWN).map(({ at: _at, ...c }) => c);
  // Notes shown as captured (and those of this window) are not shown again as related.
  const shown = new Set([...captured, ...all.filter((c) => c.window === window.id)].map((c) => c.uuid));
  const rel = await relatedNotes(root, window.headings, text, shown, o.related ?? RELATED);
  return {
    ...base,
    window: {
      id: window.id,
      document: { id: doc.id, path: doc.path, kind: doc.kind, index: m.documents.indexOf(doc) + 1, count: m.documents.length },
      index: index + 1,
      count: doc.windows.length,
      headings: window.headings,
      sections: sectionsOf(window),
      start: window.start,
      end: window.end,
      text,
      claim_expires: s.windows[window.id]?.claim?.expires ?? '',
    },
    captured,
    captured_count: all.length,
    related: rel.hits,
    ...(rel.backend ? { related_backend: rel.backend } : {}),
    ...(rel.error ? { related_error: rel.error } : {}),
  };
}
