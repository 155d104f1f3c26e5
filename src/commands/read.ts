import type { Command } from 'commander';
import { action, corpusRoot } from '../cli/context.js';

export function register(program: Command): void {
  program
    .command('read <ref>')
    .description('print a note and where its links lead (ref: uuid, uuid prefix, stem or file name)')
    .option('--no-links', 'print the note only')
    .action(action(async (ref: string, flags: { links: boolean }) => {
      const { readNote } = await import('../corpus/ops.js');
      const { noteInfo } = await import('../corpus/notes.js');
      const root = corpusRoot();
      const r = readNote(root, ref);
      const n = r.note;
      const lines = [n.raw.replace(/^\uFEFF/, '').replace(/\s+$/, '')];
      if (n.superseded_by) {
        const [next] = r.chain;
        const current = r.chain[r.chain.length - 1];
        const by = next ? `${next.path} (${next.title})` : `${n.superseded_by} (not found)`;
        const now = current && current !== next ? `; current: ${current.path} (${current.title})` : '';
        lines.unshift(`note: superseded by ${by}${now}`, '');
      }
      if (flags.links && r.links.length) {
        lines.push('', 'Links:');
        for (const l of r.links) lines.push(`  ${l.target}  ${l.resolved ? l.title : l.ambiguous ? `(ambiguous: ${l.ambiguous.join(', ')})` : '(missing)'}`);
      }
      if (flags.links && r.backlinks.length) {
        lines.push('', 'Linked from:');
        for (const b of r.backlinks) lines.push(`  ${b.path}:${b.line}  ${b.title}`);
      }
      return {
        json: {
          note: { ...noteInfo(n), supersedes: n.supersedes, body: n.parsed.body, frontmatter: n.parsed.frontmatter },
          chain: r.chain,
          links: flags.links ? r.links : [],
          backlinks: flags.links ? r.backlinks : [],
        },
        text: lines.join('\n'),
      };
    }));
}
