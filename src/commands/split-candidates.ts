import type { Command } from 'commander';
import { EXIT } from '../errors.js';
import { intOption, type Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('split-candidates')
    .description('the notes most in need of splitting: the largest first')
    .option('--top <n>', 'how many (default 10)', intOption('--top'))
    .action(
      cli.action(async (flags: { top?: number }) => {
        const { splitCandidates } = await import('../api/judged.js');
        const { splitCandidatesText } = await import('../text/judged.js');
        const r = await splitCandidates(cli.root(), flags);
        return { json: { ...r }, text: splitCandidatesText(r), exitCode: r.candidates.length ? EXIT.ok : EXIT.refused };
      }),
    );
}
