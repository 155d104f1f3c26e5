import fs from 'node:fs';
import path from 'node:path';
import { replaceDerivedFile } from '../corpus/files/files.js';
import { sidecar } from '../corpus/files/paths.js';
import { ensureSidecar } from '../corpus/files/sidecar.js';
import type { LockSite } from '../corpus/lock/lock.js';

// What a sync leaves for the next one in `.zk/sync/` (host-local, kept out of git): its lock, so
// two syncs of one clone never interleave, and the step it is at, so a sync killed half-way is
// finished or undone by the next (docs/hosts.md#when-a-sync-is-cut-short).

export interface SyncState {
  /** `merging`: a merge this tool started and had not committed; `conflict`: one left for a person. */
  step: 'merging' | 'conflict';
  /** HEAD before the merge. */
  head: string;
  since: string;
  files?: string[];
}

/** The sync's own folder of host-local files. */
export const syncDir = (root: string) => path.join(sidecar(root).zk, 'sync');
const dir = syncDir;

export function syncLockSite(root: string): LockSite {
  return { path: path.join(dir(root), 'lock'), what: 'sync', prepare: () => fs.mkdirSync(dir(root), { recursive: true }) };
}

export function readSyncState(root: string): SyncState | undefined {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dir(root), 'state.json'), 'utf8')) as SyncState;
    return s && (s.step === 'merging' || s.step === 'conflict') ? s : undefined;
  } catch {
    return undefined;
  }
}

export function writeSyncState(root: string, s: SyncState | undefined): void {
  const file = path.join(dir(root), 'state.json');
  if (!s) return void fs.rmSync(file, { force: true });
  ensureSidecar(root);
  fs.mkdirSync(dir(root), { recursive: true });
  replaceDerivedFile(file, JSON.stringify(s));
}
