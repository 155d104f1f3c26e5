import type { Command } from 'commander';
import { action, corpusRoot } from '../cli/context.js';
import { countsText } from '../cli/format.js';
import { indexReport } from './index-cmd.js';

export function register(program: Command): void {
  program
    .command('status')
    .description('corpus figures: notes by kind, superseded, archived, inbox, index freshness, lock and lease holders, last gardener pass')
    .action(action(async () => {
      const { corpusStatus } = await import('../corpus/status.js');
      const root = corpusRoot();
      const s = corpusStatus(root);
      const index = await indexReport(root);
      const kinds = Object.entries(s.byKind).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`).join(', ');
      const lines = [
        `root: ${root}`,
        `notes: ${s.notes}${kinds ? ` (${kinds})` : ''}`,
        `superseded: ${s.superseded}`,
        `archived: ${s.archived}`,
        `inbox: ${s.inbox}`,
        index.text,
        `lock: ${s.lock.held ? `held${s.lock.holder ? ` by ${s.lock.holder.host} pid ${s.lock.holder.pid}` : ''}` : 'free'}`,
        `lease: ${s.lease ? `${s.lease.host} pid ${s.lease.pid} (${s.lease.purpose}) until ${s.lease.expires}` : 'free'}`,
        `gardener: ${s.gardener ? `last pass finished ${s.gardener.finished} on ${s.gardener.host} (${countsText(s.gardener.summary, 'nothing to do')})` : 'never run'}`,
      ];
      return { json: { root, ...s, index: index.json }, text: lines.join('\n') };
    }));
}
