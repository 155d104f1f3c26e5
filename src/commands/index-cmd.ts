import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import { action, corpusRoot } from '../cli/context.js';

export function register(program: Command): void {
  program
    .command('index [what]')
    .description('bring the full-text index up to date (normally automatic); "index status" tells how fresh it is')
    .option('--rebuild', 'start over from the files')
    .action(action(async (what: string | undefined, flags: { rebuild?: boolean }) => {
      const root = corpusRoot();
      const { refreshIndex, indexFreshness } = await import('../search/fts.js');
      const { withCaretakerLease } = await import('../corpus/lease.js');
      if (what === 'status') {
        const s = indexFreshness(root);
        const text = !s.exists
          ? `no index yet (${s.notes} notes); it is built on the first search`
          : s.fresh
            ? `index up to date: ${s.notes} notes (refreshed ${s.refreshedAt})`
            : `index stale: ${s.pending} of ${s.notes} notes changed since ${s.refreshedAt}`;
        return { json: { index: s }, text };
      }
      if (what !== undefined) throw new ZkError('usage', `unknown index action: ${JSON.stringify(what)} (use "index", "index --rebuild" or "index status")`);
      const r = flags.rebuild
        ? await withCaretakerLease(root, 'index rebuild', () => refreshIndex(root, { rebuild: true }))
        : await refreshIndex(root);
      const text = r.rebuilt
        ? `index rebuilt: ${r.notes} notes`
        : `index refreshed: ${r.added} added, ${r.changed} changed, ${r.removed} removed (${r.notes} notes)`;
      return { json: { action: r.rebuilt ? 'rebuilt' : 'refreshed', ...r }, text };
    }));
}
