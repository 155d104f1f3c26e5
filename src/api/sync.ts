import { workTree } from '../adapters/git.js';
import { installMergeRules } from '../sync/rules.js';
import { syncCorpus, type SyncOutcome } from '../sync/sync.js';

// Memory that travels by git (docs/hosts.md): `sync`, and the merge rules `init` installs.

export type SyncResult = SyncOutcome;

/** Commit, fetch, merge with the note-aware rules, push: the corpus's branch and its upstream in step. */
export function sync(root: string): Promise<SyncResult> {
  return syncCorpus(root);
}

/** In a git work tree, install the merge rules (`.gitattributes` and the driver in the clone's config); else say why not. */
export async function installSyncRules(root: string): Promise<{ installed: true } | { skipped: string }> {
  const tree = await workTree(root);
  if ('skipped' in tree) return tree;
  await installMergeRules(root, tree);
  return { installed: true };
}
