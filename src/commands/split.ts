import type { Command } from 'commander';
import { action, corpusRoot, intOption } from '../cli/context.js';
import { addLlmOptions } from '../llm/options.js';
import type { LlmFlags } from '../llm/config.js';

interface SplitFlags extends LlmFlags {
  maxFragments?: number;
  source?: string;
  linkStyle?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('split <ref>')
    .description('de-merge an overgrown note into a summary parent and at most --max-fragments children (an LLM judges)')
    .option('--max-fragments <n>', 'children at most (default 4, also the most the judge allows)', intOption('--max-fragments', 2))
    .option('--source <name>', "author of the children (default: ZK_MEMORY_SOURCE, else the note's author)")
    .option('--link-style <style>', 'how the parent and children link: markdown or wikilink (default: ZK_MEMORY_LINK_STYLE, else markdown)');
  addLlmOptions(cmd).action(action(async (ref: string, flags: SplitFlags) => {
    const root = corpusRoot();
    const { resolveRef } = await import('../corpus/refs.js');
    resolveRef(root, ref); // a bad ref is a refusal whether or not an LLM is configured
    const linkStyle = (await import('../corpus/related.js')).requireLinkStyle(flags.linkStyle);
    const { requireLlm } = await import('../llm/require.js');
    const llm = requireLlm(flags);
    const { defaultSource } = await import('../corpus/ops.js');
    const { noteInfo } = await import('../corpus/notes.js');
    const { splitNote } = await import('../pipelines/split.js');
    const r = await splitNote(root, ref, { llm, maxFragments: flags.maxFragments, source: defaultSource(flags.source), linkStyle });
    if (r.action === 'not_split') {
      return { json: { action: r.action, children: [] }, text: `kept ${r.note.path} whole: the judge did not split it` };
    }
    const children = r.children.map((c) => c.path).join(', ');
    const failed = r.failed.map((f) => `\nnot written (its text stays in the parent): ${f.title}: ${f.error}`).join('');
    return {
      json: { action: r.action, parent: noteInfo(r.parent!), children: r.children.map(noteInfo), archived: r.archived, failed: r.failed },
      text: `split ${r.note.path} into ${children}; the original is in ${r.archived}${failed}`,
    };
  }));
}
