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
      const chain = n.superseded_by
        ? { superseded_by: n.superseded_by, successor: r.supersededBy ?? null }
        : {};
      const lines = [n.raw.replace(/\s+$/, '')];
      if (n.superseded_by) {
        const by = r.supersededBy ? `${r.supersededBy.path} (${r.supersededBy.title})` : `${n.superseded_by} (not found)`;
        lines.unshift(`note: superseded by ${by}`, '');
      }
      if (flags.links && r.links.length) {
        lines.push('', 'Links:');
        for (const l of r.links) lines.push(`  ${l.target}  ${l.resolved ? l.title : '(missing)'}`);
      }
      return {
        json: {
          note: { ...noteInfo(n), body: n.parsed.body, frontmatter: n.parsed.frontmatter, ...chain },
          links: flags.links ? r.links : [],
        },
        text: lines.join('\n'),
      };
    }));
}
