import type { Command } from 'commander';
import { intOption, type Invocation } from '../cli/invocation.js';
import { requireMoment } from '../api/vocabulary.js';

interface ContextFlags {
  budget?: number;
  hops?: number;
  asOf?: string;
  backend?: string;
}

export function register(program: Command, cli: Invocation): void {
  program
    .command('context [query...]')
    .description(
      'the memory an agent should see, cut to a token budget: for a query, its best notes and the notes linked to them; without one, the start of a session',
    )
    .option('--budget <tokens>', 'the most tokens the bundle may take (1000)', intOption('--budget'))
    .option('--hops <n>', 'how many links away from a hit notes are brought in: 0, 1 or 2 (1)', intOption('--hops', 0))
    .option('--as-of <date>', 'the memory as it stood at the end of that day (YYYY-MM-DD, or a date-time)', (v: string) => requireMoment(v, '--as-of'))
    .option('--backend <name>', 'auto | rg | fts | vector | hybrid, for the query (default: ZK_MEMORY_BACKEND, else auto)')
    .action(
      cli.action(async (words: string[], flags: ContextFlags) => {
        const { context } = await import('../api/context.js');
        const { contextText } = await import('../text/context.js');
        const r = await context(cli.root(), { query: words.join(' '), ...flags });
        return { json: { ...r }, text: contextText(r) };
      }),
    );
}
