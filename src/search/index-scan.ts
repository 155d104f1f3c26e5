import { now } from '../context.js';
import { computeDelta, currentManifest, noteParser, readMarks, statesDigest, statNotes, type Stat } from './changes.js';
import { manifestId } from './manifest.js';
import { residentIndex, type ResidentIndex } from './resident-index.js';

// How fresh the full-text index is, found with its change scan (src/search/changes.ts) and
// without changing anything: for `index --status` and `status`.

export interface IndexFreshness {
  exists: boolean;
  fresh: boolean;
  pending: number;
  notes: number;
  refreshedAt: string | null;
}

/** The notes' stats in name order, and when they were taken. */
export interface StatedNotes {
  stats: readonly Stat[];
  seenAt: number;
}

/**
 * How fresh the index is, and the content hash of every note file on disk now (known only when
 * the index exists), found with the index's change scan and without changing anything.
 */
export async function scanIndex(root: string, listed?: StatedNotes): Promise<IndexScan> {
  // In a resident process `listed` may be the stamps it keeps until a note changes (the watcher
  // says when): against the same manifest, the answer found for them still holds.
  const warm = residentIndex();
  const id = listed && warm ? manifestId(root) : undefined;
  const kept = id === undefined ? undefined : warm!.scans.get(listed!.stats);
  if (kept && kept.manifestId === id) return kept.scan as IndexScan;
  const scan = await scanNotes(root, warm, listed);
  if (id !== undefined && manifestId(root) === id) warm!.scans.set(listed!.stats, { manifestId: id, scan });
  return scan;
}

export interface IndexScan {
  freshness: IndexFreshness;
  hashes?: () => Map<string, string>;
}

async function scanNotes(root: string, warm: ResidentIndex | undefined, listed?: StatedNotes): Promise<IndexScan> {
  // Every note as the index last recorded it (see `planRefresh`): fresh, and the manifest is read
  // only if the hashes are asked for. `listed`: the notes' stats in name order, when the caller
  // has just taken them (a note it could not read is missing there: the digests then differ, and
  // the manifest is compared note by note).
  const seenAt = listed?.seenAt ?? now();
  const scan = listed?.stats ?? statNotes(root);
  const marks = readMarks(root);
  if (marks?.digest && statesDigest(scan, seenAt) === marks.digest) {
    const hashes = () => new Map([...(currentManifest(root, warm)?.files ?? [])].map(([name, f]) => [name, f.hash]));
    return { freshness: { exists: true, fresh: true, pending: 0, notes: scan.length, refreshedAt: marks.refreshedAt }, hashes };
  }
  // A warm process compares with the manifest it keeps (5 MB of JSON to read at 50k notes).
  const manifest = currentManifest(root, warm);
  if (!manifest) return { freshness: { exists: false, fresh: false, pending: 0, notes: scan.length, refreshedAt: null } };
  const d = computeDelta(root, scan, manifest.files, seenAt, await noteParser());
  const pending = d.upsert.size + d.removed.length;
  let hashes: Map<string, string> | undefined;
  const hashesNow = () => {
    if (hashes) return hashes;
    hashes = new Map([...manifest.files].map(([name, f]) => [name, f.hash]));
    for (const name of d.removed) hashes.delete(name);
    for (const [name, u] of d.upsert) hashes.set(name, u.state.hash);
    return hashes;
  };
  return { freshness: { exists: true, fresh: pending === 0, pending, notes: d.files, refreshedAt: manifest.refreshedAt }, hashes: hashesNow };
}
