import fs from 'node:fs';
import { readLease, type Lease } from '../lock/lease.js';
import { readLockHolder, type Holder } from '../lock/lock.js';
import { keptMetasBuilt, loadNoteMetas, type NoteMeta } from '../note/note-meta.js';
import { sidecar } from '../files/paths.js';
import { lastGardenerPass, type GardenerPass } from './gardener-record.js';

export interface CorpusStatus {
  notes: number;
  byKind: Record<string, number>;
  superseded: number;
  archived: number;
  inbox: number;
  lock: { held: boolean; holder: Holder | null };
  lease: Lease | null;
  /** The last gardener pass (tend-writes), when one has run. */
  gardener: GardenerPass | null;
}

function countFiles(dir: string, suffix: string): number {
  try {
    return fs.readdirSync(dir).filter((f) => f.endsWith(suffix)).length;
  } catch {
    return 0;
  }
}

/** What the notes alone tell of a corpus. */
export interface NoteFigures {
  notes: number;
  byKind: Record<string, number>;
  superseded: number;
}

/** The notes' count, by kind, and how many are superseded. */
export function noteFigures(notes: readonly NoteMeta[]): NoteFigures {
  const byKind: Record<string, number> = { concept: 0, entity_update: 0, decision: 0, none: 0 };
  let superseded = 0;
  for (const n of notes) {
    byKind[n.kind ?? 'none']++;
    if (n.superseded_by) superseded++;
  }
  return { notes: notes.length, byKind, superseded };
}

/** The note figures a resident process keeps until a note changes; undefined elsewhere. */
export function keptNoteFigures(root: string): NoteFigures | undefined {
  return keptMetasBuilt(root, 'figures', noteFigures);
}

/** Figures about a corpus, read without changing anything (`figures`: its notes', when already known). */
export function corpusStatus(root: string, figures: NoteFigures = keptNoteFigures(root) ?? noteFigures(loadNoteMetas(root))): CorpusStatus {
  const p = sidecar(root);
  return {
    ...figures,
    byKind: { ...figures.byKind },
    archived: countFiles(p.archive, '.md'),
    inbox: countFiles(p.inbox, '.json'),
    lock: { held: fs.existsSync(p.lock), holder: readLockHolder(root) ?? null },
    lease: readLease(root) ?? null,
    gardener: lastGardenerPass(root),
  };
}
