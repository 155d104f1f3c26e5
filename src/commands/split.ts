import type { Command } from 'commander';
import { addCommitOption, addLlmOptions, intOption, type Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  const cmd = program
    .command('split <ref>')
    .description('de-merge an overgrown note into a summary parent and at most --max-fragments children (an LLM judges)')
    .option('--max-fragments <n>', 'children at most (default 4, also the most the judge allows)', intOption('--max-fragments', 2))
    .option('--source <name>', "author of the children (default: ZK_MEMORY_SOURCE, else the note's author)")
    .option('--link-style <style>', 'how the parent and children link: markdown or wikilink (default: ZK_MEMORY_LINK_STYLE, else markdown)');
  addCommitOption(addLlmOptions(cmd)).action(
    cli.action(async (ref: string, flags: { maxFragments?: number; source?: string; linkStyle?: string }) => {
      const { split } = await import('../api/judged.js');
      const { splitText } = await import('../text/judged.js');
      const r = await split(cli.root(), ref, { maxFragments: flags.maxFragments, source: flags.source, linkStyle: flags.linkStyle });
      const { note, ...json } = r;
      return { json: r.action === 'not_split' ? { action: r.action, children: [] } : json, text: splitText(r) };
    }),
  );
}
