import { expect } from 'vitest';
import { zk } from './corpus.js';
import { preparedHosts } from './git-hosts.js';

// The steps of the sync tests (test/sync.test.ts, test/sync-failures.test.ts): the tool run on one
// host's clone, its sync, every host synced in turn, and two hosts prepared with one note.

export const run = (clone: string, ...args: string[]) => zk(['--root', clone, ...args]);
export const sync = (clone: string) => run(clone, 'sync', '--json');

export async function syncAll(clones: string[]): Promise<void> {
  // round once, then to all but the last again: the last host's sync already holds every other's
  // work, and what it pushed reaches the others on their second sync
  for (const c of [...clones, ...clones.slice(0, -1)]) expect((await sync(c)).json).toMatchObject({ ok: true });
}

/** Two hosts that both hold one note, `judy`, written on `a` and synced: made once, copied for each test. */
export const judyOnBoth = () =>
  preparedHosts('judy on both', 2, async ({ clones: [a, b] }) => {
    await run(a, 'write', 'judy', 'Judy', 'Judy paints lake sunrises.');
    await syncAll([a, b]);
  });
