import type { Command } from 'commander';
import { action, corpusRoot, intOption } from '../cli/context.js';
import type { EmbedFlags } from '../llm/config.js';
import { addEmbedOptions } from '../llm/options.js';

interface SearchFlags extends EmbedFlags {
  limit?: number;
  backend?: string;
  history?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('search <query...>')
    .description('ranked notes for a question or some words (plain words: no character is syntax)')
    .option('--limit <n>', 'how many hits at most (8)', intOption('--limit'))
    .option('--backend <name>', 'auto | rg | fts | vector | hybrid (default: ZK_MEMORY_BACKEND, else auto)')
    .option('--history', 'include superseded notes');
  addEmbedOptions(cmd)
    .action(action(async (words: string[], flags: SearchFlags) => {
      const { searchCorpus } = await import('../search/index.js');
      const root = corpusRoot();
      const query = words.join(' ');
      const r = await searchCorpus(root, query, { ...flags, progress: (line) => process.stderr.write(`search: ${line}\n`) });
      if (r.fallback) process.stderr.write(`warning: ${r.fallback}; answered with ${r.backend}\n`);
      const text = r.hits
        .map((h) => `${h.path}  ${h.title}${h.superseded_by ? ' (superseded)' : ''}\n    ${h.snippet}`)
        .join('\n');
      return {
        json: { query, backend: r.backend, ...(r.fallback ? { fallback: r.fallback } : {}), hits: r.hits },
        text,
        exitCode: r.hits.length ? 0 : 1,
      };
    }));
}
