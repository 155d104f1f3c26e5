import { now } from '../context.js';
import { withJob } from './recover.js';
import { claimExpired, isClosed, loadManifest, loadState, pickJob, type JobManifest, type JobState } from './state.js';

export interface Counts {
  windows: number;
  /** Not yet done or skipped (claimed ones included). */
  pending: number;
  /** Of the pending ones, held by a live claim right now. */
  claimed: number;
  done: number;
  skipped: number;
  notes: number;
}

export interface DocumentStatus extends Counts {
  id: string;
  path: string;
  kind: string;
  chars: number;
}

export interface JobStatus {
  job: string;
  from: string;
  created: string;
  window_chars: number;
  documents: DocumentStatus[];
  unsupported: Array<{ path: string; reason: string }>;
  totals: Counts & { documents: number };
  claims: Array<{ window: string; owner: string; expires: string }>;
  last_event: { at: string; event: string; window?: string; age_seconds: number } | null;
}

function countDocument(s: JobState, windowIds: string[]): Counts {
  const c: Counts = { windows: windowIds.length, pending: 0, claimed: 0, done: 0, skipped: 0, notes: 0 };
  for (const id of windowIds) {
    const w = s.windows[id];
    c.notes += w?.notes.length ?? 0;
    if (w?.status === 'done') c.done++;
    else if (w?.status === 'skipped') c.skipped++;
    else {
      c.pending++;
      if (!claimExpired(w?.claim)) c.claimed++;
    }
  }
  return c;
}

export function summarize(m: JobManifest, s: JobState, time = now()): JobStatus {
  const documents = m.documents.map((d) => ({
    id: d.id,
    path: d.path,
    kind: d.kind,
    chars: d.chars,
    ...countDocument(
      s,
      d.windows.map((w) => w.id),
    ),
  }));
  const totals = { documents: documents.length, windows: 0, pending: 0, claimed: 0, done: 0, skipped: 0, notes: 0 };
  for (const d of documents) for (const k of ['windows', 'pending', 'claimed', 'done', 'skipped', 'notes'] as const) totals[k] += d[k];
  const claims = m.documents
    .flatMap((d) => d.windows)
    .flatMap((w) => {
      const st = s.windows[w.id];
      return st && !isClosed(st) && st.claim && !claimExpired(st.claim, time) ? [{ window: w.id, owner: st.claim.owner, expires: st.claim.expires }] : [];
    });
  const e = s.lastEvent;
  return {
    job: m.name,
    from: m.from,
    created: m.created,
    window_chars: m.windowChars,
    documents,
    unsupported: m.unsupported,
    totals,
    claims,
    last_event: e ? { ...e, age_seconds: Math.max(0, Math.round((time - Date.parse(e.at)) / 1000)) } : null,
  };
}

/** Where a job stands. An accept cut short by a crash is repaired first, so the counts are true. */
export async function jobStatus(root: string, jobFlag?: string): Promise<JobStatus> {
  const job = pickJob(root, jobFlag);
  const state = loadState(root, job);
  if (state.intents.length) return withJob(root, job, (t) => summarize(t.manifest, t.state));
  return summarize(loadManifest(root, job), state);
}
