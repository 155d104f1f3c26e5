import type { Command } from 'commander';
import { EXIT } from '../errors.js';
import { current } from '../context.js';
import { addEmbedOptions, intOption, textArg, type Invocation } from '../cli/invocation.js';

interface SearchFlags {
  limit?: number;
  kind?: string;
  backend?: string;
  history?: boolean;
  asOf?: string;
  validAt?: string;
}

export function register(program: Command, cli: Invocation): void {
  const cmd = program
    .command('search <query...>')
    .description('ranked notes for a question or some words (plain words: no character is syntax); "-" reads the query from stdin')
    .option('--limit <n>', 'how many hits at most (8)', intOption('--limit'))
    .option('--backend <name>', 'auto | rg | fts | vector | hybrid (default: ZK_MEMORY_BACKEND, else auto)')
    .option('--history', 'include superseded notes')
    .option('--kind <kind>', 'only notes of this kind')
    .option('--as-of <date>', 'the memory as it stood at the end of that day (YYYY-MM-DD, or a date-time)')
    .option('--valid-at <date>', 'only notes whose validity covers that day, superseded ones included');
  addEmbedOptions(cmd).action(
    cli.action(async (words: string[], flags: SearchFlags) => {
      const { search } = await import('../api/search.js');
      const { searchText } = await import('../text/search.js');
      const query = words.length === 1 && words[0] === '-' ? (textArg('-') ?? '').trim() : words.join(' ');
      const stderr = (line: string) => current().io.stderr(line);
      const r = await search(cli.root(), query, { ...flags, progress: (line) => stderr(`search: ${line}\n`) });
      if (r.fallback) stderr(`warning: ${r.fallback}; answered with ${r.backend}\n`);
      return { json: { ...r }, text: searchText(r), exitCode: r.hits.length ? EXIT.ok : EXIT.refused };
    }),
  );
}
