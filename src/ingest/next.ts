import { ZkError } from '../errors.js';
import { queryWords } from '../search/terms.js';
import { searchCorpus, type SearchHit } from '../search/index.js';
import { claimWindow, firstFreeWindow, heldBy, requireOpen } from './claims.js';
import { withJob } from './recover.js';
import { claimExpired, documentText, findWindow, isClosed, pickJob, touch, type JobManifest, type JobState } from './state.js';

export interface NextOptions {
  job?: string;
  /** Show (and claim) this window again instead of the next free one. */
  window?: string;
  /** Who is reading: a named reader is shown the window it still holds before a new one. */
  owner?: string;
  /** How many related notes to show. */
  related?: number;
}

export interface WindowView {
  id: string;
  document: { id: string; path: string; kind: string; index: number; count: number };
  index: number;
  count: number;
  headings: string[];
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
  /** Notes already captured from this window's document, in reading order. */
  captured: CapturedView[];
  related: SearchHit[];
  related_backend?: string;
  related_error?: string;
  /** Windows not yet done or skipped, this one included. */
  remaining: number;
  /** Of those, how many other readers hold right now. */
  claimed_by_others: number;
}

const RELATED = 5;
const KEY_TERMS = 8;

/** The most frequent content words of a window, for finding related notes. */
export function keyTerms(text: string, n = KEY_TERMS): string[] {
  const counts = new Map<string, number>();
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w.length >= 4 && /\p{L}/u.test(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
  return queryWords(ranked.slice(0, n * 3).join(' ')).slice(0, n);
}

function capturedFrom(m: JobManifest, s: JobState, docId: string): CapturedView[] {
  const doc = m.documents.find((d) => d.id === docId);
  return (doc?.windows ?? []).flatMap((w) =>
    (s.windows[w.id]?.notes ?? []).map((n) => ({
      window: w.id, headings: w.headings, action: n.action, uuid: n.uuid, path: n.path, title: n.title,
    })),
  );
}

async function relatedNotes(root: string, query: string, exclude: Set<string>, limit: number) {
  try {
    const r = await searchCorpus(root, query, { limit: limit + exclude.size });
    return { hits: r.hits.filter((h) => !exclude.has(h.uuid)).slice(0, limit), backend: r.backend };
  } catch (err) {
    // Related notes are a help for the reader, never a reason to withhold the window.
    return { hits: [], error: String((err as Error)?.message ?? err).split('\n')[0] };
  }
}

/** Claim the next window (or the one named) and show it with its context. Writes nothing but the claim. */
export async function nextWindow(root: string, o: NextOptions = {}): Promise<NextResult> {
  const job = pickJob(root, o.job);
  const claimed = await withJob(root, job, (t) => {
    const id = o.window !== undefined ? findWindow(t.manifest, o.window.trim()).window.id : heldBy(t, o.owner ?? '') ?? firstFreeWindow(t);
    if (id !== undefined) {
      requireOpen(t, id);
      claimWindow(t, id, o.owner ?? '');
      touch(t.state, 'next', id);
    }
    return { id, manifest: t.manifest, state: structuredClone(t.state) };
  });
  const { manifest: m, state: s } = claimed;
  const open = m.documents.flatMap((d) => d.windows).filter((w) => !isClosed(s.windows[w.id]));
  const othersHold = open.filter((w) => w.id !== claimed.id && !claimExpired(s.windows[w.id]?.claim)).length;
  const base = { job, remaining: open.length, claimed_by_others: othersHold };
  if (claimed.id === undefined) return { ...base, window: null, captured: [], related: [] };

  const { doc, window, index } = findWindow(m, claimed.id);
  const text = documentText(root, job, doc).slice(window.start, window.end);
  if (text.length !== window.end - window.start) throw new ZkError('io', `the converted copy of ${doc.path} is damaged (job ${job})`);
  const captured = capturedFrom(m, s, doc.id);
  const own = new Set(captured.filter((c) => c.window === window.id).map((c) => c.uuid));
  const rel = await relatedNotes(root, [...window.headings, ...keyTerms(text)].join(' '), own, o.related ?? RELATED);
  return {
    ...base,
    window: {
      id: window.id,
      document: { id: doc.id, path: doc.path, kind: doc.kind, index: m.documents.indexOf(doc) + 1, count: m.documents.length },
      index: index + 1,
      count: doc.windows.length,
      headings: window.headings,
      start: window.start,
      end: window.end,
      text,
      claim_expires: s.windows[window.id]?.claim?.expires ?? '',
    },
    captured,
    related: rel.hits,
    ...(rel.backend ? { related_backend: rel.backend } : {}),
    ...(rel.error ? { related_error: rel.error } : {}),
  };
}
