import { archiveRelinking, type Relink } from './relink.js';
import { withCorpusLock } from '../lock/lock.js';
import { resolveRef } from '../graph/refs.js';

/**
 * Retire a note to `.archive/` under the lock (see archiveNote), re-linking the chain it was part
 * of (see archiveRelinking).
 */
export async function retireNote(root: string, ref: string): Promise<{ archived: string; relinked: Relink[] }> {
  return withCorpusLock(root, (lock) => archiveRelinking(root, lock, resolveRef(root, ref)));
}
