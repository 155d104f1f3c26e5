import fs from 'node:fs';
import { readLease, type Lease } from '../lock/lease.js';
import { readLockHolder, type Holder } from '../lock/lock.js';
import { loadNoteMetas, type NoteMeta } from '../note/note-meta.js';
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

/** Figures about a corpus, read without changing anything (`notes`: its notes, when already listed). */
export function corpusStatus(root: string, notes: NoteMeta[] = loadNoteMetas(root)): CorpusStatus {
  const byKind: Record<string, number> = { concept: 0, entity_update: 0, decision: 0, none: 0 };
  for (const n of notes) byKind[n.kind ?? 'none']++;
  const p = sidecar(root);
  return {
    notes: notes.length,
    byKind,
    superseded: notes.filter((n) => n.superseded_by).length,
    archived: countFiles(p.archive, '.md'),
    inbox: countFiles(p.inbox, '.json'),
    lock: { held: fs.existsSync(p.lock), holder: readLockHolder(root) ?? null },
    lease: readLease(root) ?? null,
    gardener: lastGardenerPass(root),
  };
}
